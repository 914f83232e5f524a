/**
 * The web channel's HTTP surface: channel creation, visitor sessions and tokens, the visitor's
 * message callback, origins and CORS, the event stream (SSE) and the widget script.
 */
import { expect } from 'chai';
import nock from 'nock';
import { signToken } from '../../src/api/web/token.ts';
import { createRedis } from '../../src/shared/redis.ts';
import {
  VisitorStreams,
  visitorStreamKey,
  WEB_SCRIPTS,
  type WebEvent,
} from '../../src/shared/web/visitor-stream.ts';
import { clearTopic, REDIS_URL, waitFor } from '../support/services.ts';
import { createTelegramBot, startTestApi, topicMessages, type TestApi } from '../support/api.ts';
import { openSse } from '../support/sse.ts';
import {
  createWebBot,
  eventsUrl,
  postVisitorMessage,
  SHOP_ORIGIN,
  startSession,
  webTokenKey,
} from '../support/web.ts';

describe('web channel (HTTP)', function () {
  this.timeout(20_000);
  let t: TestApi;
  let appId: string;
  let streams: VisitorStreams;
  const redis = createRedis(REDIS_URL, { scripts: WEB_SCRIPTS });

  const channelTopic = () => topicMessages(t.redis, t.prefix, 'channel');
  const event = (id: string, text: string): WebEvent => ({
    id,
    conversation_id: 'c1',
    direction: 'out',
    turn_id: 't1',
    message_type: 'text',
    text,
    created_at: new Date().toISOString(),
  });

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi({ WEB_MAX_EVENT_STREAMS: '3' });
    ({ appId } = await createWebBot(t));
    streams = new VisitorStreams({ redis, prefix: t.prefix, maxLen: 100, ttlS: 600 });
  });

  afterEach(() => clearTopic(t.redis, t.prefix, 'channel'));

  after(async () => {
    redis.disconnect();
    nock.cleanAll();
    nock.enableNetConnect();
    await t.stop();
  });

  it('when a bot is created with a web channel, then it shows its origins, URLs and widget snippet, never its token key', async () => {
    const { created } = await createWebBot(t, { origins: [] });
    const channel = created.channels[0];
    expect(channel).to.include({
      type: 'web',
      callback_url: `https://bots.example.test/v2/callback/web/${created.app_id}`,
      events_url: `https://bots.example.test/v2/web/${created.app_id}/events`,
      widget_snippet: `<script src="https://bots.example.test/v2/web/widget.js" data-app-id="${created.app_id}" async></script>`,
    });
    expect(channel.allowed_origins).to.deep.equal([]);
    expect(JSON.stringify(created)).not.to.match(/token_key/);
  });

  it('when a web channel names a path or a second web channel is added, then 400 and 409', async () => {
    const bad = await t.call('POST', '/v2/bots', {
      body: {
        name: 'x',
        channel: { type: 'web', details: { allowed_origins: ['https://shop.example/path'] } },
      },
    });
    expect(bad.status).to.equal(400);
    expect(bad.json.error.code).to.equal('BW_ERR_SCHEMA');
    const second = await t.call('POST', `/v2/bots/${appId}/channels`, {
      body: { type: 'web', details: { allowed_origins: [] } },
    });
    expect(second.status).to.equal(409);
    expect(second.json.error.code).to.equal('BW_ERR_CONFLICT');
  });

  it('when a visitor starts a session and renews it, then the renewal keeps the visitor id', async () => {
    const first = await startSession(t, appId);
    expect(first.visitor_id).to.match(/^v_[A-Za-z0-9_-]{24}$/);
    expect(first.conversation_id).to.equal(null);
    const left = Date.parse(first.expires_at) - Date.now();
    expect(left).to.be.within(7 * 86400_000 - 60_000, 7 * 86400_000);
    const renewed = await startSession(t, appId, first.token);
    expect(renewed.visitor_id).to.equal(first.visitor_id);
    const other = await startSession(t, appId);
    expect(other.visitor_id).not.to.equal(first.visitor_id);
  });

  it('when a visitor sends a message, then it is published once per client message id', async () => {
    const { token, visitor_id: visitor } = await startSession(t, appId);
    const first = await postVisitorMessage(t, appId, token, {
      client_message_id: 'm1',
      text: 'hi',
    });
    expect(first.status).to.equal(202);
    expect(first.json).to.deep.equal({ accepted: true, duplicate: false });
    expect(first.headers['access-control-allow-origin']).to.equal(SHOP_ORIGIN);
    const again = await postVisitorMessage(t, appId, token, {
      client_message_id: 'm1',
      text: 'hi',
    });
    expect(again.json).to.deep.equal({ accepted: true, duplicate: true });
    const published = await channelTopic();
    expect(published).to.have.length(1);
    expect(published[0].bot_input).to.deep.include({
      kind: 'web',
      app_id: appId,
      channel_type: 'web',
      web: { visitor_id: visitor, client_message_id: 'm1', text: 'hi' },
    });
    expect(published[0].ordering_key).to.equal(`${appId}:${visitor}`);
  });

  it('when the token is missing, forged, for another bot or expired, then 401 with its code and nothing is published', async () => {
    const { token, visitor_id: visitor } = await startSession(t, appId);
    const other = await createWebBot(t, { name: 'other' });
    const otherToken = (await startSession(t, other.appId)).token;
    const key = await webTokenKey(t, appId);
    const expired = signToken(key, {
      app_id: appId,
      visitor_id: visitor,
      exp: Math.floor(Date.now() / 1000) - 1,
    });
    const cases: [string | undefined, string][] = [
      [undefined, 'BW_ERR_BAD_TOKEN'],
      [`${token.slice(0, -4)}AAAA`, 'BW_ERR_BAD_TOKEN'],
      [otherToken, 'BW_ERR_BAD_TOKEN'],
      ['garbage', 'BW_ERR_BAD_TOKEN'],
      [expired, 'BW_ERR_TOKEN_EXPIRED'],
    ];
    for (const [given, code] of cases) {
      const answer = await t.call('POST', `/v2/callback/web/${appId}`, {
        auth: false,
        headers: { origin: SHOP_ORIGIN, ...(given ? { authorization: `Bearer ${given}` } : {}) },
        body: { client_message_id: 'x', text: 'hi' },
      });
      expect(answer.status, String(given)).to.equal(401);
      expect(answer.json.error.code, String(given)).to.equal(code);
    }
    const renew = await t.call('POST', `/v2/web/${appId}/sessions`, {
      auth: false,
      body: { token: expired },
    });
    expect(renew.status).to.equal(401);
    expect(renew.json.error.code).to.equal('BW_ERR_TOKEN_EXPIRED');
    expect(await channelTopic()).to.have.length(0);
  });

  it('when a message has both text and a button, or no content, then 400 and nothing is published', async () => {
    const { token } = await startSession(t, appId);
    for (const body of [
      { client_message_id: 'a', text: 'hi', button_id: 'b' },
      { client_message_id: 'a' },
      { client_message_id: '', text: 'hi' },
      { text: 'hi' },
    ]) {
      const answer = await postVisitorMessage(t, appId, token, body);
      expect(answer.status, JSON.stringify(body)).to.equal(400);
      expect(answer.json.error.code).to.equal('BW_ERR_SCHEMA');
    }
    expect(await channelTopic()).to.have.length(0);
  });

  it('when the origin is not allowed, then 403 BW_ERR_ORIGIN_REFUSED without CORS headers; an allowed origin and the own origin pass preflight', async () => {
    const { token } = await startSession(t, appId);
    const refused = await t.call('POST', `/v2/callback/web/${appId}`, {
      auth: false,
      headers: { origin: 'https://evil.example.test', authorization: `Bearer ${token}` },
      body: { client_message_id: 'o1', text: 'hi' },
    });
    expect(refused.status).to.equal(403);
    expect(refused.json.error.code).to.equal('BW_ERR_ORIGIN_REFUSED');
    expect(refused.headers['access-control-allow-origin']).to.equal(undefined);
    const session = await t.call('POST', `/v2/web/${appId}/sessions`, {
      auth: false,
      headers: { origin: 'https://shop.example.test:8443' },
      body: {},
    });
    expect(session.status).to.equal(403);
    expect(await channelTopic()).to.have.length(0);

    for (const origin of [SHOP_ORIGIN, 'https://bots.example.test']) {
      const response = await fetch(`${t.url}/v2/callback/web/${appId}`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      expect(response.status, origin).to.equal(204);
      expect(response.headers.get('access-control-allow-origin')).to.equal(origin);
      expect(response.headers.get('access-control-allow-headers')).to.match(/Authorization/);
      expect(response.headers.get('access-control-allow-methods')).to.match(/POST/);
    }
    const preflight = await fetch(`${t.url}/v2/web/${appId}/events`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example.test', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).to.equal(403);
    expect(preflight.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it('when the bot is unknown, switched off or has no web channel, then the codes of the other callbacks', async () => {
    const tg = await createTelegramBot(t, { name: 'tg only' });
    const off = await createWebBot(t, { name: 'off' });
    await t.call('PATCH', `/v2/bots/${off.appId}`, { body: { active: false } });
    const cases: [string, string][] = [
      ['00000000-0000-4000-8000-000000000000', 'BW_ERR_UNKNOWN_BOT'],
      ['not-a-uuid', 'BW_ERR_UNKNOWN_BOT'],
      [tg.appId, 'BW_ERR_UNKNOWN_CHANNEL'],
      [off.appId, 'BW_ERR_BOT_INACTIVE'],
    ];
    for (const [id, code] of cases) {
      const answer = await t.call('POST', `/v2/web/${id}/sessions`, { auth: false, body: {} });
      expect(answer.status, code).to.equal(404);
      expect(answer.json.error.code).to.equal(code);
    }
  });

  it('when a client reads the events, then it gets the retained events, new ones as they come, and resumes after Last-Event-ID repeating nothing', async () => {
    const { token, visitor_id: visitor } = await startSession(t, appId);
    const first = await streams.append(appId, visitor, event('e1', 'one'));
    const client = await openSse(eventsUrl(t, appId, token), '', { origin: SHOP_ORIGIN });
    expect(client.status).to.equal(200);
    expect(client.headers['content-type']).to.match(/^text\/event-stream/);
    expect(client.headers['access-control-allow-origin']).to.equal(SHOP_ORIGIN);
    await client.waitForEvents(1);
    await streams.append(appId, visitor, event('e2', 'two'));
    const seen = await client.waitForEvents(2);
    expect(seen.map((e) => [e.event, e.data.text])).to.deep.equal([
      ['message', 'one'],
      ['message', 'two'],
    ]);
    expect(seen[0]!.id).to.equal(first);
    client.close();

    await streams.append(appId, visitor, event('e3', 'three'));
    const resumed = await openSse(eventsUrl(t, appId, token), '', { 'last-event-id': first });
    const after = await resumed.waitForEvents(2);
    await streams.append(appId, visitor, event('e4', 'four'));
    await resumed.waitForEvents(3);
    expect(resumed.events.map((e) => e.data.text)).to.deep.equal(['two', 'three', 'four']);
    expect(after[0]!.id).to.equal(seen[1]!.id);
    resumed.close();
  });

  it('when the same message is appended twice, then the stream holds it once', async () => {
    const { visitor_id: visitor } = await startSession(t, appId);
    const a = await streams.append(appId, visitor, event('same', 'once'));
    const b = await streams.append(appId, visitor, event('same', 'once'));
    expect(b).to.equal(a);
    expect(await t.redis.xlen(visitorStreamKey(t.prefix, appId, visitor))).to.equal(1);
  });

  it('when the events are asked without a valid token or from a refused origin, then 401 or 403', async () => {
    const noToken = await t.call('GET', `/v2/web/${appId}/events`, { auth: false });
    expect(noToken.status).to.equal(401);
    expect(noToken.json.error.code).to.equal('BW_ERR_BAD_TOKEN');
    const { token } = await startSession(t, appId);
    const bearer = await openSse(`${t.url}/v2/web/${appId}/events`, '', {
      authorization: `Bearer ${token}`,
      origin: 'https://evil.example.test',
    });
    expect(bearer.status).to.equal(403);
    bearer.close();
  });

  it('when more event streams are asked than WEB_MAX_EVENT_STREAMS, then 503 BW_ERR_TOO_MANY_STREAMS, and a slot frees when a client leaves', async () => {
    const { token } = await startSession(t, appId);
    const open = await Promise.all([1, 2, 3].map(() => openSse(eventsUrl(t, appId, token), '')));
    expect(open.map((c) => c.status)).to.deep.equal([200, 200, 200]);
    const refused = await t.call('GET', `/v2/web/${appId}/events?token=${token}`, { auth: false });
    expect(refused.status).to.equal(503);
    expect(refused.json.error.code).to.equal('BW_ERR_TOO_MANY_STREAMS');
    open[0]!.close();
    const again = await waitFor(async () => {
      const client = await openSse(eventsUrl(t, appId, token), '');
      if (client.status === 200) return client;
      client.close();
      return undefined;
    });
    for (const c of [...open, again]) c.close();
  });

  it('when the widget is asked, then it is JavaScript with a cache header, and a matching ETag gets 304', async () => {
    const response = await fetch(`${t.url}/v2/web/widget.js`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^application\/javascript/);
    expect(response.headers.get('cache-control')).to.equal('public, max-age=3600');
    expect(await response.text()).to.match(/data-app-id/);
    const etag = response.headers.get('etag') ?? '';
    const cached = await fetch(`${t.url}/v2/web/widget.js`, {
      // fetch sends Cache-Control: no-cache unless told otherwise, which forbids a 304.
      headers: { 'if-none-match': etag, 'cache-control': 'max-age=0' },
    });
    expect(cached.status).to.equal(304);
  });
});

describe('web channel in the OpenAPI description', () => {
  it('when the description is read, then it names the web routes and the event shape', async () => {
    const t = await startTestApi();
    try {
      const doc = (await t.call('GET', '/v2/openapi.json', { auth: false })).json;
      expect(Object.keys(doc.paths)).to.include.members([
        '/v2/web/{app_id}/sessions',
        '/v2/callback/web/{app_id}',
        '/v2/web/{app_id}/events',
        '/v2/web/widget.js',
      ]);
      expect(doc.components.schemas['web-event'].required).to.include('conversation_id');
      expect(doc.components.schemas.channel.properties.type.enum).to.include('web');
    } finally {
      await t.stop();
    }
  });
});

describe('web event streams at shutdown', function () {
  this.timeout(20_000);

  it('when the api closes, then open event streams end and the close completes', async () => {
    const t = await startTestApi();
    const stopped = { done: false };
    try {
      const { appId } = await createWebBot(t);
      const { token } = await startSession(t, appId);
      const client = await openSse(eventsUrl(t, appId, token), '');
      expect(client.status).to.equal(200);
      await t.stop().then(() => (stopped.done = true));
      await client.ended;
    } finally {
      if (!stopped.done) await t.stop();
    }
  });
});

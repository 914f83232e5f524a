import { expect } from 'chai';
import nock from 'nock';
import { groupOf, topicKeys } from '../../src/shared/bus/topics.ts';
import { startTestApi, TELEGRAM_TOKEN, type TestApi } from '../support/api.ts';

const WA_DETAILS = {
  phone_number_id: '200300400',
  access_token: 'EAAG-secret-access-token-xyz',
  app_secret: 'super-secret-app-secret',
  verify_token: 'secret-verify-token',
};
const TINY_FLOW = {
  version: 1,
  start: 'hello',
  states: { hello: { actions: [{ send: { text: 'Hi {{name}}' } }], end: true } },
};
const SECRETS = [
  TELEGRAM_TOKEN,
  WA_DETAILS.access_token,
  WA_DETAILS.app_secret,
  WA_DETAILS.verify_token,
];

describe('admin API', () => {
  let t: TestApi;
  const responses: string[] = [];
  const call = async (...args: Parameters<TestApi['call']>) => {
    const response = await t.call(...args);
    responses.push(response.text);
    return response;
  };
  const createTelegramBot = (name = 'support bot') =>
    call('POST', '/v2/bots', {
      body: { name, channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } } },
    });

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi();
  });

  after(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await t.stop();
  });

  const pinned: [string, string][] = [
    ['POST', '/v2/bots'],
    ['GET', '/v2/bots'],
    ['GET', '/v2/bots/6f1c1f8e-0000-4000-8000-000000000000'],
    ['PATCH', '/v2/bots/6f1c1f8e-0000-4000-8000-000000000000'],
    ['DELETE', '/v2/bots/6f1c1f8e-0000-4000-8000-000000000000'],
    ['POST', '/v2/bots/6f1c1f8e-0000-4000-8000-000000000000/channels'],
    [
      'POST',
      '/v2/bots/6f1c1f8e-0000-4000-8000-000000000000/channels/6f1c1f8e-0000-4000-8000-000000000001/webhook',
    ],
    ['GET', '/v2/bots/6f1c1f8e-0000-4000-8000-000000000000/conversations'],
    ['GET', '/v2/conversations/6f1c1f8e-0000-4000-8000-000000000000/messages'],
  ];
  for (const [method, path] of pinned) {
    it(`when ${method} ${path.replace(/[0-9a-f-]{36}/g, ':id')} has no or a wrong token, then 401 BW_ERR_UNAUTHORIZED`, async () => {
      const none = await call(method, path, { auth: false, body: {} });
      expect(none.status).to.equal(401);
      expect(none.json.error.code).to.equal('BW_ERR_UNAUTHORIZED');
      const wrong = await call(method, path, {
        headers: { authorization: 'Bearer wrong' },
        body: {},
      });
      expect(wrong.status).to.equal(401);
    });
  }

  it('when a bot is created, then 201 with app_id and each channel callback_url built from the public base URL', async () => {
    const created = await createTelegramBot();
    expect(created.status).to.equal(201);
    const { app_id: appId, channels } = created.json;
    expect(appId).to.match(/^[0-9a-f-]{36}$/);
    expect(channels).to.have.length(1);
    expect(channels[0].callback_url).to.equal(
      `https://bots.example.test/v2/callback/telegram/${appId}`,
    );
    expect(created.json.flow.start, 'a bot without a flow gets the default one').to.equal(
      'welcome',
    );
    const read = await call('GET', `/v2/bots/${appId}`);
    // Only the answers to a create or update carry the flow's warnings.
    const { warnings, ...bot } = created.json;
    expect(warnings).to.deep.equal([]);
    expect(read.json).to.deep.equal(bot);
  });

  it('when a WhatsApp channel is added, then it is listed without its credentials, and its number cannot be taken twice', async () => {
    const { json: bot } = await createTelegramBot('two channels');
    const added = await call('POST', `/v2/bots/${bot.app_id}/channels`, {
      body: { type: 'whatsapp', details: WA_DETAILS },
    });
    expect(added.status).to.equal(201);
    expect(added.json).to.include({
      type: 'whatsapp',
      phone_number_id: WA_DETAILS.phone_number_id,
      has_app_secret: true,
      has_verify_token: true,
    });
    const again = await call('POST', '/v2/bots', {
      body: { name: 'thief', channel: { type: 'whatsapp', details: WA_DETAILS } },
    });
    expect(again.status).to.equal(409);
    expect(again.json.error.code).to.equal('BW_ERR_CONFLICT');
  });

  it('when a second Telegram channel is added to a bot, then 409 BW_ERR_CONFLICT (its callback URL names the bot)', async () => {
    const { json: bot } = await createTelegramBot('one telegram');
    const again = await call('POST', `/v2/bots/${bot.app_id}/channels`, {
      body: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
    });
    expect(again.status).to.equal(409);
    expect(again.json.error.code).to.equal('BW_ERR_CONFLICT');
  });

  it('when the body fails its schema, then 400 BW_ERR_SCHEMA naming the path', async () => {
    const response = await call('POST', '/v2/bots', {
      body: { name: 'x', channel: { type: 'telegram', details: { bot_token: 'not-a-token' } } },
    });
    expect(response.status).to.equal(400);
    expect(response.json.error.code).to.equal('BW_ERR_SCHEMA');
    expect(response.json.error.details.problems.map((p: { path: string }) => p.path)).to.include(
      '/channel/details/bot_token',
    );
    const unknownField = await call(
      'PATCH',
      `/v2/bots/${(await createTelegramBot()).json.app_id}`,
      { body: { colour: 'red' } },
    );
    expect(unknownField.json.error.details.problems[0].path).to.equal('/colour');
  });

  it('when the flow is invalid, then 400 BW_ERR_FLOW_INVALID with the path into the body, on create and on update', async () => {
    const broken = {
      ...TINY_FLOW,
      states: { hello: { actions: [{ send: { text: 'Hi' } }], next: 'nowhere' } },
    };
    const created = await call('POST', '/v2/bots', {
      body: {
        name: 'broken',
        flow: broken,
        channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
      },
    });
    expect(created.status).to.equal(400);
    expect(created.json.error.code).to.equal('BW_ERR_FLOW_INVALID');
    expect(created.json.error.details.problems.map((p: { path: string }) => p.path)).to.include(
      '/flow/states/hello/next',
    );
    const { json: bot } = await createTelegramBot('fine');
    const patched = await call('PATCH', `/v2/bots/${bot.app_id}`, {
      body: { flow: { ...TINY_FLOW, start: 'missing' } },
    });
    expect(patched.status).to.equal(400);
    expect(patched.json.error.details.problems.map((p: { path: string }) => p.path)).to.include(
      '/flow/start',
    );
    expect((await call('GET', `/v2/bots/${bot.app_id}`)).json.flow.start, 'unchanged').to.equal(
      'welcome',
    );
  });

  it('when a flow is valid but a turn can make more HTTP steps than the budget, then it is accepted and the warnings come back on create, on update and beside problems', async () => {
    const steps = Array.from({ length: 11 }, (_, i) => ({
      http: { method: 'GET', url: `https://api.example.test/${i}`, store: `r${i}` },
    }));
    const heavy = { version: 1, start: 'call', states: { call: { actions: steps, end: true } } };
    const created = await call('POST', '/v2/bots', {
      body: {
        name: 'heavy',
        flow: heavy,
        channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
      },
    });
    expect(created.status).to.equal(201);
    // Eleven steps, and 55 s of default timeouts: both budgets.
    expect(created.json.warnings.map((w: { path: string }) => w.path)).to.deep.equal([
      '/flow/states/call',
      '/flow/states/call',
    ]);
    expect(created.json.warnings[0].message).to.match(/FLOW_HTTP_MAX_STEPS/);
    expect(created.json.warnings[1].message).to.match(/FLOW_HTTP_TURN_BUDGET_MS/);
    const patched = await call('PATCH', `/v2/bots/${created.json.app_id}`, {
      body: { flow: heavy },
    });
    expect(patched.status).to.equal(200);
    expect(patched.json.warnings).to.have.length(2);
    const renamed = await call('PATCH', `/v2/bots/${created.json.app_id}`, { body: { name: 'h' } });
    expect(renamed.json.warnings).to.deep.equal([]);
    const refused = await call('PATCH', `/v2/bots/${created.json.app_id}`, {
      body: { flow: { ...heavy, states: { ...heavy.states, bad: { next: 'nowhere' } } } },
    });
    expect(refused.json.error.code).to.equal('BW_ERR_FLOW_INVALID');
    expect(
      refused.json.error.details.warnings.map((w: { path: string }) => w.path),
    ).to.include.members(['/flow/states/call', '/flow/states/bad']);
  });

  it('when bots are listed, then pages follow next_after to the end', async () => {
    const names: string[] = [];
    let after = '';
    for (;;) {
      const page = await call('GET', `/v2/bots?limit=2${after ? `&after=${after}` : ''}`);
      expect(page.status).to.equal(200);
      names.push(...page.json.items.map((b: { name: string }) => b.name));
      if (!page.json.next_after) break;
      after = page.json.next_after;
    }
    const all = await call('GET', '/v2/bots?limit=100');
    expect(names).to.deep.equal(all.json.items.map((b: { name: string }) => b.name));
    expect(names.length).to.be.greaterThan(2);
    expect((await call('GET', '/v2/bots?limit=0')).json.error.code).to.equal('BW_ERR_SCHEMA');
  });

  it('when a bot is updated and deleted, then reads follow, and conversations of a deleted bot are 404', async () => {
    const { json: bot } = await createTelegramBot('to change');
    const patched = await call('PATCH', `/v2/bots/${bot.app_id}`, {
      body: { name: 'changed', active: false, flow: TINY_FLOW },
    });
    expect(patched.json).to.include({ name: 'changed', active: false });
    expect(patched.json.flow).to.deep.equal(TINY_FLOW);
    const conversations = await call('GET', `/v2/bots/${bot.app_id}/conversations`);
    expect(conversations.json).to.deep.equal({ items: [], next_after: null });
    expect((await call('DELETE', `/v2/bots/${bot.app_id}`)).status).to.equal(204);
    expect((await call('GET', `/v2/bots/${bot.app_id}`)).json.error.code).to.equal(
      'BW_ERR_UNKNOWN_BOT',
    );
    expect((await call('GET', `/v2/bots/${bot.app_id}/conversations`)).status).to.equal(404);
  });

  it('when the Telegram webhook is registered, then setWebhook gets the callback url and a secret that the callback then accepts', async () => {
    const { json: bot } = await createTelegramBot('webhook');
    let form: Record<string, string> = {};
    const telegram = nock('https://telegram.example.test')
      .post(`/bot${TELEGRAM_TOKEN}/setWebhook`, (body: Record<string, string>) => {
        form = body;
        return true;
      })
      .reply(200, { ok: true, result: true, description: 'Webhook was set' });
    const response = await call(
      'POST',
      `/v2/bots/${bot.app_id}/channels/${bot.channels[0].id}/webhook`,
    );
    expect(response.status).to.equal(200);
    expect(response.json).to.include({
      ok: true,
      url: `https://bots.example.test/v2/callback/telegram/${bot.app_id}`,
    });
    expect(response.json.telegram).to.deep.equal({ ok: true, description: 'Webhook was set' });
    expect(telegram.isDone()).to.be.true;
    expect(form.url).to.equal(`https://bots.example.test/v2/callback/telegram/${bot.app_id}`);
    expect(form.secret_token).to.match(/^[A-Za-z0-9_-]{32,256}$/);
    expect(JSON.parse(form.allowed_updates!)).to.deep.equal([
      'message',
      'edited_message',
      'callback_query',
    ]);
    expect(
      (await call('GET', `/v2/bots/${bot.app_id}`)).json.channels[0].webhook_registered_at,
    ).to.be.a('string');

    const accepted = await call('POST', `/v2/callback/telegram/${bot.app_id}`, {
      auth: false,
      headers: { 'x-telegram-bot-api-secret-token': form.secret_token! },
      body: {
        update_id: 1,
        message: { message_id: 1, date: 1, chat: { id: 1, type: 'private' }, text: 'hi' },
      },
    });
    expect(accepted.status).to.equal(200);
  });

  it('when Telegram refuses setWebhook, then 502 BW_ERR_UPSTREAM with its description', async () => {
    const { json: bot } = await createTelegramBot('refused');
    nock('https://telegram.example.test').post(`/bot${TELEGRAM_TOKEN}/setWebhook`).reply(400, {
      ok: false,
      error_code: 400,
      description: 'Bad Request: bad webhook: HTTPS url must be provided for webhook',
    });
    const response = await call(
      'POST',
      `/v2/bots/${bot.app_id}/channels/${bot.channels[0].id}/webhook`,
    );
    expect(response.status).to.equal(502);
    expect(response.json.error.code).to.equal('BW_ERR_UPSTREAM');
    expect(response.json.error.message).to.contain('HTTPS url must be provided');
  });

  it('when health, readiness, metrics and the OpenAPI description are asked for, then they answer', async () => {
    expect((await call('GET', '/healthz', { auth: false })).json).to.deep.equal({ status: 'ok' });
    expect((await call('GET', '/readyz', { auth: false })).json).to.deep.equal({
      status: 'ready',
      checks: { redis: 'ok', postgres: 'ok' },
    });
    const metrics = await call('GET', '/metrics', { auth: false });
    expect(metrics.text).to.match(
      /botwire_http_requests_total\{route="\/v2\/bots",method="POST",status="201"\} \d+/,
    );
    const openapi = await call('GET', '/v2/openapi.json', { auth: false });
    expect(openapi.json.openapi).to.equal('3.1.0');
    expect(Object.keys(openapi.json.paths)).to.include.members([
      '/v2/bots',
      '/v2/bots/{app_id}/channels/{channel_id}/webhook',
      '/callback',
    ]);
  });

  it('when admin requests are refused before their handler, then /metrics counts them under their own route, never under a middleware pattern', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    expect((await call('GET', `/v2/bots/${id}`, { auth: false })).status).to.equal(401);
    expect((await call('DELETE', `/v2/bots/${id}/flow/draft`, { auth: false })).status).to.equal(
      401,
    );
    const metrics = (await call('GET', '/metrics', { auth: false })).text;
    expect(metrics).to.match(
      /botwire_http_requests_total\{route="\/v2\/bots\/:app_id",method="GET",status="401"\} \d+/,
    );
    expect(metrics).to.match(
      /botwire_http_requests_total\{route="\/v2\/bots\/:app_id\/flow\/draft",method="DELETE",status="401"\} \d+/,
    );
    const routes = [...metrics.matchAll(/botwire_http_requests_total\{route="([^"]*)"/g)].map(
      (m) => m[1]!,
    );
    expect(routes.filter((route) => !route.startsWith('/') && route !== 'unmatched')).to.deep.equal(
      [],
    );
  });

  it('when messages wait in a topic and one is dead-lettered, then /metrics shows each by topic', async () => {
    const keys = topicKeys(t.prefix, 'indexer', t.config.stream.partitions);
    for (const stream of keys.partitions) {
      await t.redis.call('XGROUP', 'CREATE', stream, groupOf('indexer'), '0', 'MKSTREAM');
    }
    await t.redis.xadd(
      keys.partitions[0]!,
      '*',
      'data',
      '{"collection_name":"a","files":["a.pdf"]}',
    );
    await t.redis.xadd(
      keys.partitions[3]!,
      '*',
      'data',
      '{"collection_name":"b","files":["b.pdf"]}',
    );
    await t.redis.xadd(keys.dead(0), '*', 'data', '{}', 'code', 'BW_ERR_MESSAGE_INVALID');
    await t.redis.xadd(keys.dead(3), '*', 'data', '{}', 'code', 'BW_ERR_MESSAGE_INVALID');
    const metrics = await call('GET', '/metrics', { auth: false });
    expect(metrics.text).to.contain('botwire_topic_waiting_messages{topic="indexer"} 2');
    expect(metrics.text).to.contain('botwire_topic_waiting_messages{topic="flow"} 0');
    expect(metrics.text).to.contain('botwire_dead_letters{topic="indexer"} 2');
    expect(metrics.text).to.contain('botwire_dead_letters{topic="channel"} 0');
  });

  it('after all of the above, then no credential appeared in any response, log line or database column', async () => {
    const rows = await t.schema.db<{ credentials: string }>('channels').select('credentials');
    const haystacks = {
      responses: responses.join('\n'),
      logs: t.logs.join('\n'),
      database: rows.map((r) => r.credentials).join('\n'),
    };
    expect(t.logs.length).to.be.greaterThan(10);
    for (const [where, text] of Object.entries(haystacks)) {
      for (const secret of SECRETS)
        expect(text, `${where} must not contain a credential`).not.to.contain(secret);
      expect(text, `${where} must not contain the admin key`).not.to.contain(t.adminKey);
    }
  });
});

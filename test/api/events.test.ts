/**
 * GET /v2/events against the real edge: the api's own `bot` events, resuming, filters, the cap on
 * clients, slow clients, and that a failing events stream never fails the work behind an event.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventHub } from '../../src/api/events/hub.ts';
import { startApi } from '../../src/api/worker.ts';
import { eventsKey } from '../../src/shared/events/types.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { connectRedis, uniquePrefix, waitFor } from '../support/services.ts';
import { openSse, openStalledSse, type SseStream } from '../support/sse.ts';

const botBody = (name: string) => ({
  name,
  channel: {
    type: 'telegram',
    details: { bot_token: '123456789:AAExampleTokenForTests_abcdefghijk' },
  },
});

describe('live events (GET /v2/events)', function () {
  this.timeout(60_000);
  let t: TestApi;
  const open: SseStream[] = [];
  const sse = async (path = '/v2/events', headers: Record<string, string> = {}) => {
    const stream = await openSse(t.url, path, {
      authorization: `Bearer ${t.adminKey}`,
      ...headers,
    });
    open.push(stream);
    return stream;
  };
  const createBot = async (name = 'bot') => {
    const created = await t.call('POST', '/v2/bots', { body: botBody(name) });
    expect(created.status).to.equal(201);
    return created.json.app_id as string;
  };
  const metric = async (name: string): Promise<number> => {
    const { text } = await t.call('GET', '/metrics', { auth: false });
    const lines = text.split('\n').filter((l) => l.startsWith(name));
    return lines.reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  };

  beforeEach(async () => {
    t = await startTestApi({ EVENTS_MAX_CLIENTS: '3' });
  });

  afterEach(async () => {
    for (const stream of open.splice(0)) stream.close();
    await t.stop();
  });

  it('when no or a wrong admin key is sent, then 401 BW_ERR_UNAUTHORIZED and no stream', async () => {
    const none = await openSse(t.url, '/v2/events');
    expect(none.status).to.equal(401);
    expect(none.json.error.code).to.equal('BW_ERR_UNAUTHORIZED');
    const wrong = await openSse(t.url, '/v2/events', { authorization: 'Bearer wrong' });
    expect(wrong.status).to.equal(401);
  });

  it('when bots are created, changed and deleted, then bot events arrive in that order with stream ids', async () => {
    const stream = await sse();
    expect(stream.status).to.equal(200);
    const appId = await createBot();
    expect(
      (await t.call('PATCH', `/v2/bots/${appId}`, { body: { name: 'renamed' } })).status,
    ).to.equal(200);
    expect((await t.call('DELETE', `/v2/bots/${appId}`)).status).to.equal(204);
    const events = await stream.waitForEvents(3, 'bot');
    expect(events.map((e) => e.data)).to.deep.equal([
      { app_id: appId, change: 'created' },
      { app_id: appId, change: 'updated' },
      { app_id: appId, change: 'deleted' },
    ]);
    const ids = (await t.redis.xrange(eventsKey(t.prefix), '-', '+')).map(([id]) => id);
    expect(events.map((e) => e.id)).to.deep.equal(ids);
  });

  it('when a client resumes after a Last-Event-ID, then it gets exactly the events after it, none twice', async () => {
    const first = await sse();
    const before = [await createBot('a'), await createBot('b')];
    const seen = await first.waitForEvents(2, 'bot');
    first.close();
    const after = [await createBot('c'), await createBot('d')];
    const resumed = await sse('/v2/events', { 'last-event-id': seen[0]!.id! });
    const events = await resumed.waitForEvents(3, 'bot');
    expect(events.map((e) => e.data.app_id)).to.deep.equal([before[1], ...after]);
    const more = await createBot('e');
    await resumed.waitForEvents(4, 'bot');
    expect(resumed.events.map((e) => e.data.app_id)).to.deep.equal([before[1], ...after, more]);
  });

  it('when events keep coming while a client catches up, then it gets each one once, in stream order', async () => {
    const key = eventsKey(t.prefix);
    const data = JSON.stringify({ app_id: 'x', change: 'updated' });
    const add = () => t.redis.xadd(key, '*', 'type', 'bot', 'data', data);
    const first = await add();
    for (let i = 0; i < 1500; i += 1) await add();
    // More arrive while the backlog is read: the switch to live must neither skip nor repeat.
    const writing = (async () => {
      for (let i = 0; i < 500; i += 1) await add();
    })();
    const stream = await sse('/v2/events', { 'last-event-id': first! });
    await writing;
    const events = await stream.waitForEvents(2000, 'bot', 30_000);
    const ids = (await t.redis.xrange(key, `(${first}`, '+')).map(([id]) => id);
    expect(events.map((e) => e.id)).to.deep.equal(ids);
  });

  it('when last_event_id is given in the query and in the header, then the header wins', async () => {
    const ids = [await createBot('a'), await createBot('b'), await createBot('c')];
    const rows = await t.redis.xrange(eventsKey(t.prefix), '-', '+');
    const stream = await sse(`/v2/events?last_event_id=${rows[0]![0]}`, {
      'last-event-id': rows[1]![0],
    });
    const events = await stream.waitForEvents(1, 'bot');
    expect(events.map((e) => e.data.app_id)).to.deep.equal([ids[2]]);
    const byQuery = await sse(`/v2/events?last_event_id=${rows[0]![0]}`);
    expect((await byQuery.waitForEvents(2, 'bot')).map((e) => e.data.app_id)).to.deep.equal(
      ids.slice(1),
    );
  });

  it('when no Last-Event-ID is sent, then the stream starts from now', async () => {
    await createBot('old');
    const stream = await sse();
    const fresh = await createBot('new');
    const events = await stream.waitForEvents(1, 'bot');
    expect(events.map((e) => e.data.app_id)).to.deep.equal([fresh]);
  });

  it('when the Last-Event-ID is older than the stream keeps, then a reset event comes first, then new events', async () => {
    await createBot('a');
    const oldId = (await t.redis.xrange(eventsKey(t.prefix), '-', '+'))[0]![0];
    await createBot('b');
    await createBot('c');
    // The event after oldId is trimmed away: what the client missed is no longer all there.
    await t.redis.xtrim(eventsKey(t.prefix), 'MAXLEN', 1);
    const stream = await sse('/v2/events', { 'last-event-id': oldId });
    const [reset] = await stream.waitForEvents(1, 'reset');
    expect(reset!.data.reason).to.be.a('string');
    expect(stream.events[0]!.event).to.equal('reset');
    const fresh = await createBot('d');
    const bots = await stream.waitForEvents(1, 'bot');
    expect(bots.map((e) => e.data.app_id)).to.deep.equal([fresh]);
  });

  it('when the Last-Event-ID is not an event id or passes 64 bits, then 400 BW_ERR_SCHEMA', async () => {
    for (const id of ['yesterday', '18446744073709551616-0', '1-99999999999999999999']) {
      const stream = await sse('/v2/events', { 'last-event-id': id });
      expect(stream.status, id).to.equal(400);
      expect(stream.json.error.code).to.equal('BW_ERR_SCHEMA');
    }
  });

  it('when filtered by app_id and types, then only those events arrive', async () => {
    const a = await createBot('a');
    const b = await createBot('b');
    const onlyA = await sse(`/v2/events?app_id=${a}&types=bot`);
    const onlyTypes = await sse('/v2/events?types=message,conversation');
    await t.call('PATCH', `/v2/bots/${b}`, { body: { name: 'b2' } });
    await t.call('PATCH', `/v2/bots/${a}`, { body: { name: 'a2' } });
    const events = await onlyA.waitForEvents(1, 'bot');
    expect(events.map((e) => e.data)).to.deep.equal([{ app_id: a, change: 'updated' }]);
    expect(onlyTypes.events).to.deep.equal([]);
    const unknown = await sse('/v2/events?types=gossip');
    expect(unknown.status).to.equal(400);
  });

  it('when EVENTS_MAX_CLIENTS streams are open, then one more is refused with 503 BW_ERR_EVENTS_BUSY', async () => {
    for (let i = 0; i < 3; i += 1) expect((await sse()).status).to.equal(200);
    const refused = await sse();
    expect(refused.status).to.equal(503);
    expect(refused.json.error.code).to.equal('BW_ERR_EVENTS_BUSY');
    open[0]!.close();
    await waitFor(async () => (await metric('botwire_event_stream_clients')) === 2);
    expect((await sse()).status).to.equal(200);
  });

  it('when a client stops reading, then it is dropped and the others still get every event', async () => {
    const slow = await openStalledSse(t.url, '/v2/events', {
      authorization: `Bearer ${t.adminKey}`,
    });
    await waitFor(async () => (await metric('botwire_event_stream_clients')) === 1);
    const fast = await sse();
    // Large entries, written straight to the stream: past what the kernel buffers for a socket
    // nobody reads, the api's own buffer fills.
    const data = JSON.stringify({ app_id: 'x', change: 'updated', pad: 'x'.repeat(64 * 1024) });
    for (let i = 0; i < 200; i += 1) {
      await t.redis.xadd(eventsKey(t.prefix), '*', 'type', 'bot', 'data', data);
    }
    await fast.waitForEvents(200, 'bot', 30_000);
    await waitFor(async () => (await metric('botwire_event_stream_clients')) === 1, {
      what: 'the slow client dropped',
    });
    expect(fast.events).to.have.length(200);
    slow.close();
  });

  it('when the api closes, then its streams end, and a new api process catches up from the last id', async () => {
    const stream = await sse();
    const a = await createBot('a');
    const [seen] = await stream.waitForEvents(1, 'bot');
    await t.api.close();
    await stream.ended;
    // A second api on the same Redis and Postgres: bots changed while no api streamed.
    const second = await startApi(t.config, createLogger({ component: 'api', level: 'silent' }));
    const secondUrl = `http://127.0.0.1:${second.port}`;
    try {
      const created = await fetch(`${secondUrl}/v2/bots`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(botBody('b')),
      });
      const b = ((await created.json()) as { app_id: string }).app_id;
      const resumed = await openSse(secondUrl, '/v2/events', {
        authorization: `Bearer ${t.adminKey}`,
        'last-event-id': seen!.id!,
      });
      open.push(resumed);
      const events = await resumed.waitForEvents(1, 'bot');
      expect(events.map((e) => e.data)).to.deep.equal([{ app_id: b, change: 'created' }]);
      expect(a).to.not.equal(b);
    } finally {
      for (const s of open.splice(0)) s.close();
      await second.close();
    }
  });

  it('when the events stream cannot be written, then admin changes still succeed and the loss is counted', async () => {
    // A string where the stream should be: every XADD fails (WRONGTYPE).
    await t.redis.set(eventsKey(t.prefix), randomBytes(4).toString('hex'));
    const appId = await createBot('kept');
    expect((await t.call('GET', `/v2/bots/${appId}`)).status).to.equal(200);
    await waitFor(async () => (await metric('botwire_events_lost_total')) >= 1);
  });
});

describe('the events hub on its own', function () {
  this.timeout(30_000);

  it('when a stream is idle, then heartbeat comments keep coming; close() ends it', async () => {
    const redis = connectRedis();
    const hub = new EventHub({
      redis,
      prefix: uniquePrefix(),
      maxClients: 2,
      logger: createLogger({ component: 'test', level: 'silent' }),
      heartbeatMs: 50,
    });
    const server = createServer((req, res) => {
      hub.open(req, res, { filter: {} }).catch(() => res.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const stream = await openSse(`http://127.0.0.1:${port}`, '/');
      await waitFor(() => stream.comments >= 2, { what: 'two heartbeats' });
      expect(stream.events).to.deep.equal([]);
      await hub.close();
      await stream.ended;
    } finally {
      await hub.close();
      server.close();
      redis.disconnect();
    }
  });
});

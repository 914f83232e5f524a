import { expect } from 'chai';
import { Breaker, BREAKER_SCRIPTS } from '../../src/channel/breaker.ts';
import { admitTurns, BOT_TURN_SCRIPTS } from '../../src/shared/bot-turns.ts';
import { createRedis } from '../../src/shared/redis.ts';
import { REDIS_URL } from '../support/services.ts';
import { StreamConsumer } from '../../src/shared/bus/consumer.ts';
import { ensureGroups } from '../../src/shared/bus/group-commands.ts';
import { Producer } from '../../src/shared/bus/producer.ts';
import { groupOf, topicKeys, type Topic } from '../../src/shared/bus/topics.ts';
import { BotwireError } from '../../src/shared/errors.ts';
import { createLogger } from '../../src/shared/logger.ts';
import type { Redis } from '../../src/shared/redis.ts';
import { SchemaRegistry } from '../../src/shared/schemas.ts';
import { startTestApi, TELEGRAM_TOKEN, type TestApi } from '../support/api.ts';
import { connectRedis, topicEntries, waitFor } from '../support/services.ts';

interface IndexMessage {
  collection_name: string;
  files: string[];
}

describe('operations routes', function () {
  this.timeout(60_000);
  let t: TestApi;
  let partitions: number;
  const connections: Redis[] = [];
  const consumers: StreamConsumer<IndexMessage>[] = [];
  const schemas = new SchemaRegistry();
  const logger = createLogger({ component: 'test', level: 'silent' });

  /** A real consumer of `topic` under the edge's prefix, started; closed after each test. */
  const startConsumer = async (
    topic: Topic,
    name: string,
    handler: (m: IndexMessage) => Promise<void>,
  ): Promise<StreamConsumer<IndexMessage>> => {
    const redis = connectRedis();
    connections.push(redis);
    const producer = new Producer({ redis, schemas, prefix: t.prefix, maxLen: 10_000, partitions });
    const consumer = new StreamConsumer<IndexMessage>({
      redis,
      producer,
      schemas,
      logger,
      topic,
      name,
      prefix: t.prefix,
      partitions,
      handler,
      blockMs: 50,
      leaseMs: 600,
      retryBaseMs: 20,
      maxDeliveries: 2,
    });
    consumers.push(consumer);
    await consumer.start();
    return consumer;
  };

  /** The dead-letter streams of a topic, one per partition. */
  const deadKeys = (topic: Topic) => {
    const keys = topicKeys(t.prefix, topic, partitions);
    return keys.partitions.map((_, p) => keys.dead(p));
  };

  /** A dead letter shaped as the consumer writes one, in `partition`; its listed id. */
  const addDeadLetter = async (topic: Topic, data: string, partition = 0): Promise<string> => {
    const entryId = (await t.redis.xadd(
      topicKeys(t.prefix, topic, partitions).dead(partition),
      '*',
      'data',
      data,
      'source_id',
      '1700000000000-0',
      'stream',
      topicKeys(t.prefix, topic, partitions).partitions[partition]!,
      'topic',
      topic,
      'group',
      groupOf(topic),
      'consumer',
      'worker-1',
      'code',
      'BW_ERR_HANDLER',
      'reason',
      'failed 5 deliveries',
      'deliveries',
      '5',
      'failed_at',
      '2026-11-22T03:00:00.000Z',
    )) as string;
    return `p${partition}-${entryId}`;
  };

  before(async () => {
    t = await startTestApi({ CONSUMER_NAME: 'api-test-1' });
    partitions = t.config.stream.partitions;
  });

  afterEach(async () => {
    for (const c of consumers.splice(0)) await c.close();
    for (const r of connections.splice(0)) r.disconnect();
    for (const topic of ['indexer', 'retriver'] as const) {
      // One key at a time: on a cluster the partitions' keys lie in different slots.
      for (const key of [...deadKeys(topic), ...topicKeys(t.prefix, topic, partitions).partitions])
        await t.redis.del(key);
    }
  });

  after(async () => {
    await t.stop();
  });

  it('when consumers run on topics, then processes lists each under its component with a recent last_seen, and the api itself', async () => {
    const before = Date.now();
    const consumer = await startConsumer('indexer', 'indexer-a', async () => undefined);
    await startConsumer('indexer', 'indexer-b', async () => undefined);
    const { status, json } = await waitFor(async () => {
      const r = await t.call('GET', '/v2/ops/processes');
      const indexer = r.json?.components?.find((c: any) => c.component === 'indexer');
      return indexer?.processes.length === 2 ? r : undefined;
    });
    expect(status).to.equal(200);
    expect(json.components.map((c: any) => c.component)).to.deep.equal([
      'api',
      'channel',
      'language',
      'flow',
      'retriver',
      'indexer',
    ]);
    const byName = (component: string) =>
      json.components.find((c: any) => c.component === component).processes;
    expect(byName('indexer').map((p: any) => p.name)).to.deep.equal(['indexer-a', 'indexer-b']);
    expect(byName('api').map((p: any) => p.name)).to.deep.equal(['api-test-1']);
    expect(byName('flow')).to.deep.equal([]);
    for (const p of [...byName('indexer'), ...byName('api')]) {
      expect(p.alive).to.equal(true);
      expect(Date.parse(p.last_seen)).to.be.within(before - 5_000, Date.now() + 1_000);
    }

    await consumer.close();
    const after = await t.call('GET', '/v2/ops/processes');
    const indexer = after.json.components.find((c: any) => c.component === 'indexer');
    expect(indexer.processes.map((p: any) => p.name)).to.deep.equal(['indexer-b']);
  });

  it('when entries wait unread, pending and dead in a topic, then topics shows each count', async () => {
    const keys = topicKeys(t.prefix, 'indexer', partitions);
    await ensureGroups(t.redis, keys.partitions, groupOf('indexer'));
    const stream = keys.partitions[0]!;
    for (const name of ['a', 'b', 'c']) {
      await t.redis.xadd(stream, '*', 'data', JSON.stringify({ collection_name: name, files: [] }));
    }
    await t.redis.xreadgroup(
      'GROUP',
      groupOf('indexer'),
      'someone',
      'COUNT',
      1,
      'STREAMS',
      stream,
      '>',
    );
    await addDeadLetter('indexer', '{}');
    await addDeadLetter('indexer', '{}', partitions - 1);

    const { status, json } = await t.call('GET', '/v2/ops/topics');
    expect(status).to.equal(200);
    expect(json.topics.map((x: any) => x.topic)).to.deep.equal([
      'channel',
      'language',
      'flow',
      'retriver',
      'indexer',
    ]);
    expect(json.topics.find((x: any) => x.topic === 'indexer')).to.deep.equal({
      topic: 'indexer',
      backlog: 3,
      unread: 2,
      pending: 1,
      dead_letters: 2,
    });
    expect(json.topics.find((x: any) => x.topic === 'flow')).to.include({
      backlog: 0,
      dead_letters: 0,
    });
  });

  it('when a message is dead-lettered, then it is listed and inspected, and once replayed after the fix it is handled once, and a second replay finds nothing', async () => {
    let fixed = false;
    const handled: string[] = [];
    await startConsumer('indexer', 'indexer-a', async (m) => {
      if (!fixed) throw new BotwireError('BW_ERR_MESSAGE_INVALID', 'a bug in the handler');
      handled.push(m.collection_name);
    });
    await t.redis.xadd(
      topicKeys(t.prefix, 'indexer', partitions).partitions[0]!,
      '*',
      'data',
      JSON.stringify({ collection_name: 'faq', files: ['a.pdf'] }),
    );
    const listed = await waitFor(async () => {
      const r = await t.call('GET', '/v2/ops/dead-letters/indexer');
      return r.json?.items?.length === 1 ? r.json : undefined;
    });
    const [item] = listed.items;
    expect(item.id).to.match(/^p0-\d+-\d+$/);
    expect(item).to.include({ code: 'BW_ERR_MESSAGE_INVALID', topic: 'indexer' });
    expect(item.reason).to.contain('a bug in the handler');
    expect(item.data).to.deep.equal({ collection_name: 'faq', files: ['a.pdf'] });
    expect(Date.parse(item.failed_at)).to.be.a('number').and.not.NaN;
    expect(listed.next_after).to.equal(null);

    const one = await t.call('GET', `/v2/ops/dead-letters/indexer/${item.id}`);
    expect(one.status).to.equal(200);
    expect(one.json).to.deep.equal(item);

    fixed = true;
    // Two replays of the same letter at once: it goes back once.
    const replays = await Promise.all(
      [1, 2].map(() =>
        t.call('POST', '/v2/ops/dead-letters/indexer/replay', { body: { ids: [item.id] } }),
      ),
    );
    expect(replays.map((r) => r.status)).to.deep.equal([200, 200]);
    expect(replays.map((r) => r.json.replayed).sort()).to.deep.equal([0, 1]);
    const refused = replays.find((r) => r.json.replayed === 0)!.json.refused;
    expect(refused).to.deep.equal([
      { id: item.id, code: 'BW_ERR_NOT_FOUND', reason: 'no such dead letter' },
    ]);
    // The original entry and one replay of it; once nothing waits in the topic, each was handled.
    expect(await topicEntries(t.redis, t.prefix, 'indexer', partitions)).to.have.length(2);
    await waitFor(
      async () => {
        const { json } = await t.call('GET', '/v2/ops/topics');
        return json.topics.find((x: any) => x.topic === 'indexer').backlog === 0;
      },
      { what: 'the replayed message handled' },
    );
    expect(handled).to.deep.equal(['faq']);
    expect((await t.call('GET', '/v2/ops/dead-letters/indexer')).json.items).to.deep.equal([]);
    expect((await t.call('GET', `/v2/ops/dead-letters/indexer/${item.id}`)).status).to.equal(404);
  });

  it('when all dead letters are replayed, then the valid ones go back on the topic and an invalid or malformed one is refused and kept', async () => {
    const valid = [
      JSON.stringify({ collection_name: 'one', files: ['a.pdf'] }),
      JSON.stringify({ collection_name: 'two', files: ['b.pdf'] }),
    ];
    // Across partitions: each letter goes back onto its own.
    const ids: string[] = [];
    for (const [i, data] of valid.entries()) ids.push(await addDeadLetter('indexer', data, i));
    const invalid = await addDeadLetter('indexer', '{"collection_name":"three"}');
    const malformed = await addDeadLetter('indexer', 'not json {');

    const { status, json } = await t.call('POST', '/v2/ops/dead-letters/indexer/replay', {
      body: { all: true },
    });
    expect(status).to.equal(200);
    expect(json.replayed).to.equal(2);
    expect(json.replayed_ids.map((r: any) => r.id)).to.deep.equal(ids);
    expect(json.refused.map((r: any) => [r.id, r.code])).to.deep.equal([
      [invalid, 'BW_ERR_MESSAGE_INVALID'],
      [malformed, 'BW_ERR_MESSAGE_MALFORMED'],
    ]);
    expect(json.refused[0].reason).to.contain('/files');
    expect(json.refused_count).to.equal(2);
    const entries = await topicEntries(t.redis, t.prefix, 'indexer', partitions);
    expect(entries.map((e) => JSON.parse(e.data).collection_name)).to.have.members(['one', 'two']);
    const keys = topicKeys(t.prefix, 'indexer', partitions);
    for (const [p, name] of ['one', 'two'].entries()) {
      const [entry] = await t.redis.xrange(keys.partitions[p]!, '-', '+');
      expect(JSON.parse(entry![1][1]!).collection_name, `partition ${p}`).to.equal(name);
    }
    expect(entries.map((e) => e.id)).to.have.members(json.replayed_ids.map((r: any) => r.new_id));

    const kept = await t.call('GET', '/v2/ops/dead-letters/indexer?limit=1');
    expect(kept.json.items.map((l: any) => l.id)).to.deep.equal([invalid]);
    expect(kept.json.next_after).to.equal(invalid);
    const rest = await t.call('GET', `/v2/ops/dead-letters/indexer?limit=1&after=${invalid}`);
    expect(rest.json.items.map((l: any) => [l.id, l.data])).to.deep.equal([
      [malformed, 'not json {'],
    ]);
    expect(rest.json.next_after).to.equal(null);
  });

  it('when the topic, the letter or the body is wrong, then 400 BW_ERR_UNKNOWN_TOPIC, 404 BW_ERR_NOT_FOUND or 400 BW_ERR_SCHEMA', async () => {
    const unknown = await t.call('GET', '/v2/ops/dead-letters/nope');
    expect([unknown.status, unknown.json.error.code]).to.deep.equal([400, 'BW_ERR_UNKNOWN_TOPIC']);
    // The former shape, a partition the topic does not have, and a well-formed id of no letter.
    for (const id of ['1-1', `p${partitions}-1-1`, 'p0-1-1']) {
      const missing = await t.call('GET', `/v2/ops/dead-letters/flow/${id}`);
      expect([missing.status, missing.json.error.code], id).to.deep.equal([
        404,
        'BW_ERR_NOT_FOUND',
      ]);
    }
    for (const body of [
      {},
      { ids: [] },
      { ids: ['x'] },
      { all: false },
      { ids: ['1-1'] },
      { ids: ['p0-1-1'], all: true },
    ]) {
      const r = await t.call('POST', '/v2/ops/dead-letters/flow/replay', { body });
      expect([r.status, r.json.error.code], JSON.stringify(body)).to.deep.equal([
        400,
        'BW_ERR_SCHEMA',
      ]);
    }
    for (const after of ['nope', '1-0']) {
      const cursor = await t.call('GET', `/v2/ops/dead-letters/flow?after=${after}`);
      expect(cursor.status, after).to.equal(400);
    }
    const noAuth = await t.call('GET', '/v2/ops/topics', { auth: false });
    expect(noAuth.status).to.equal(401);
  });

  it('when a bot’s platform fails, then bots shows its breaker open with the replies parked behind it, its backlog and today’s refused replies by code, first; a quiet bot shows nothing waiting', async () => {
    const made = async (name: string) =>
      (
        await t.call('POST', '/v2/bots', {
          body: { name, channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } } },
        })
      ).json as { app_id: string; channels: { id: string }[] };
    const quiet = await made('A quiet bot');
    const failing = await made('Z failing bot');
    const channel = failing.channels[0]!.id;
    // What channel does when the platform fails: five failed calls open the breaker, and the
    // replies that come meanwhile are parked behind it.
    const redis = createRedis(REDIS_URL, {
      name: 'botwire-test',
      scripts: { ...BREAKER_SCRIPTS, ...BOT_TURN_SCRIPTS },
    });
    connections.push(redis);
    const breaker = new Breaker({ redis, prefix: t.prefix, openMs: 60_000, openMaxMs: 60_000 });
    for (let i = 0; i < 5; i += 1) await breaker.fail(channel);
    for (const turn of ['t1', 't2', 't3']) await breaker.admit(channel, turn, '{}');
    // Two turns of the bot still in flight, as the edge admitted them.
    await admitTurns(redis, t.prefix, failing.app_id, ['in-1', 'in-2'], 1000, 60_000);

    // Replies Telegram refused, as channel counts them: today's show, yesterday's do not.
    const refusals = (day: string, code: string, count: number) => ({
      app_id: failing.app_id,
      day: t.schema.db.raw(day),
      channel_type: 'telegram',
      event: 'send_failed',
      code,
      count,
    });
    const today = `(now() at time zone 'utc')::date`;
    await t.schema
      .db('analytics_events')
      .insert([
        refusals(today, '403', 2),
        refusals(today, '400', 3),
        refusals(`${today} - 1`, '403', 5),
      ]);

    const { status, json } = await t.call('GET', '/v2/ops/bots');
    expect(status).to.equal(200);
    const [first, ...rest] = json.bots as any[];
    expect(first).to.deep.include({ app_id: failing.app_id, name: 'Z failing bot', backlog: 5 });
    expect(first.refused_today).to.deep.equal([
      { channel_type: 'telegram', code: '400', count: 3 },
      { channel_type: 'telegram', code: '403', count: 2 },
    ]);
    expect(first.channels[0]).to.deep.include({
      id: channel,
      type: 'telegram',
      parked: 3,
      breaker: 'open',
      failures: 5,
    });
    expect(first.channels[0].open_ms).to.be.within(1, 60_000);
    const calm = rest.find((b) => b.app_id === quiet.app_id);
    expect(calm).to.deep.include({ backlog: 0, refused_today: [] });
    expect(calm.channels[0]).to.deep.include({
      parked: 0,
      breaker: 'closed',
      open_ms: 0,
      failures: 0,
    });
  });

  it('when the OpenAPI description is read, then every route here is in it with a response schema that has properties', async () => {
    const { json } = await t.call('GET', '/v2/openapi.json', { auth: false });
    for (const path of [
      '/v2/ops/processes',
      '/v2/ops/topics',
      '/v2/ops/bots',
      '/v2/ops/dead-letters/{topic}',
      '/v2/ops/dead-letters/{topic}/{id}',
      '/v2/bots/{app_id}/conversations',
      '/v2/conversations/{id}',
      '/v2/collections',
      '/v2/collections/{name}/jobs',
    ]) {
      const schema = json.paths[path]?.get?.responses?.[200]?.content['application/json'].schema;
      expect(schema?.properties, path).to.be.an('object');
    }
    const replay = json.paths['/v2/ops/dead-letters/{topic}/replay'].post;
    expect(replay.responses[200].content['application/json'].schema.properties).to.have.keys(
      'replayed',
      'replayed_ids',
      'refused',
      'refused_count',
    );
  });
});

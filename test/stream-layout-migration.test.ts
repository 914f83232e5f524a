/**
 * The migration from the former stream key layout (one hash tag per topic), on one Redis and on a
 * private Redis Cluster: a legacy layout seeded by hand (streams with groups, entries acknowledged, pending and unread,
 * dead letters, dedupe markers), drained by stand-ins for the old workers (XREADGROUP + XACK on
 * the legacy keys), switched, and checked by the start check and by a real publishOnce.
 */
import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  deadLetterPartition,
  drain,
  findLegacyKeys,
  NotDrainedError,
  status,
  switchLayout,
  type LayoutTarget,
} from '../scripts/lib/stream-layout.ts';
import { checkLegacyLayout, readLegacyState } from '../src/shared/bus/legacy-layout.ts';
import { Producer } from '../src/shared/bus/producer.ts';
import { LEGACY_LAYOUT, topicKeys, type Topic } from '../src/shared/bus/topics.ts';
import { loadConfig } from '../src/config.ts';
import { BotwireError } from '../src/shared/errors.ts';
import { createLogger } from '../src/shared/logger.ts';
import { consume, createKit } from '../src/shared/worker-kit.ts';
import { mastersOf, type Redis } from '../src/shared/redis.ts';
import { SchemaRegistry } from '../src/shared/schemas.ts';
import { startTestApi } from './support/api.ts';
import { keyInPartition } from './support/bus.ts';
import { run } from './support/run.ts';
import { forEachRedisMode } from './support/redis-modes.ts';
import { connectRedis, dropPrefix, uniquePrefix } from './support/services.ts';

const PARTITIONS = 4;
const CONSUMER = 'old-worker';

/** An ordering key of the form conv-<n> that lands in `partition`. */
const keyIn = (partition: number): string => keyInPartition(partition, PARTITIONS);

const indexerMessage = (key: string): Record<string, unknown> => ({
  collection_name: 'faq',
  files: ['a.pdf'],
  ordering_key: key,
});

/** The fields the old consumer's #deadLetter wrote. */
const deadFields = (prefix: string, data: string, sourceId: string): string[] => [
  'data',
  data,
  'source_id',
  sourceId,
  'stream',
  LEGACY_LAYOUT.partition(prefix, 'indexer', 1),
  'topic',
  'indexer',
  'group',
  'indexer',
  'consumer',
  CONSUMER,
  'code',
  'BW_ERR_HANDLER',
  'reason',
  'boom',
  'deliveries',
  '5',
  'failed_at',
  '2026-11-20T10:00:00.000Z',
];

forEachRedisMode('stream layout migration', (mode) => {
  let redis: Redis;
  let prefix: string;
  let target: LayoutTarget;
  let lines: string[];

  const legacy = (topic: Topic, p: number): string => LEGACY_LAYOUT.partition(prefix, topic, p);
  const newKeys = (topic: Topic) => topicKeys(prefix, topic, PARTITIONS);

  /** XREADGROUP the entries of a legacy stream (`>` new ones, `0` this consumer's pending). */
  const readGroup = async (topic: Topic, p: number, from: '>' | '0', count = 100) => {
    const reply = (await redis.xreadgroup(
      'GROUP',
      topic,
      CONSUMER,
      'COUNT',
      count,
      'STREAMS',
      legacy(topic, p),
      from,
    )) as [string, [string, string[]][]][] | null;
    return reply?.[0]?.[1] ?? [];
  };

  /** What the old workers do: read and acknowledge everything of every legacy partition. */
  const oldWorkersOnce = async (): Promise<number> => {
    let handled = 0;
    for (const topic of ['channel', 'flow'] as const) {
      for (let p = 0; p < PARTITIONS; p += 1) {
        if ((await redis.exists(legacy(topic, p))) === 0) continue;
        for (const from of ['0', '>'] as const) {
          for (const [id] of await readGroup(topic, p, from)) {
            // A channel turn goes on to flow (in the partition of the same number), as the old
            // workers fed each other; flow ends the chain here.
            if (topic === 'channel') await redis.xadd(legacy('flow', p), '*', 'data', '{}');
            await redis.xack(legacy(topic, p), topic, id);
            handled += 1;
          }
        }
      }
    }
    return handled;
  };

  const letters = {
    a: { id: '1700000000001-0', key: keyIn(1) },
    b: { id: '1700000000002-0', key: keyIn(2) },
    junk: { id: '1700000000003-0' },
  };

  /** The former layout with work in every state. */
  const seed = async (): Promise<void> => {
    for (const topic of ['channel', 'flow'] as const) {
      for (let p = 0; p < PARTITIONS; p += 1) {
        await redis.xgroup('CREATE', legacy(topic, p), topic, '$', 'MKSTREAM');
      }
    }
    // channel p0: one acknowledged, one pending, one unread.
    for (let i = 0; i < 3; i += 1)
      await redis.xadd(legacy('channel', 0), '*', 'data', `{"n":${i}}`);
    const [first] = await readGroup('channel', 0, '>', 2);
    await redis.xack(legacy('channel', 0), 'channel', first![0]);
    // flow p2: two unread.
    for (let i = 0; i < 2; i += 1) await redis.xadd(legacy('flow', 2), '*', 'data', '{}');
    await redis.hset(LEGACY_LAYOUT.failures(prefix, 'channel'), 'p0/1-0', 'boom');
    // Dead letters: two JSON ones with ordering keys, one whose data is not JSON.
    const dead = LEGACY_LAYOUT.dead(prefix, 'indexer');
    for (const [l, data] of [
      [letters.a, JSON.stringify(indexerMessage(letters.a.key))],
      [letters.b, JSON.stringify(indexerMessage(letters.b.key))],
      [letters.junk, 'not json {'],
    ] as const) {
      await redis.xadd(dead, l.id, ...deadFields(prefix, data, `1699999999999-${l.id.at(-3)}`));
    }
    // Dedupe markers with their TTLs.
    await redis.set(`${prefix}:{indexer}:seen:tg:1`, '1', 'EX', 3600);
    await redis.set(`${prefix}:{channel}:seen:tg:2`, '1', 'PX', 90_000);
    // The member set is per topic in both layouts: the migration keeps it.
    await redis.zadd(`${prefix}:{channel}:members`, Date.now() + 60_000, 'new-worker');
  };

  beforeEach(() => {
    redis = connectRedis(mode.url());
    prefix = uniquePrefix();
    lines = [];
    target = { redis, prefix, partitions: PARTITIONS, say: (line) => lines.push(line) };
  });

  afterEach(async () => {
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });

  it('when no legacy key exists, then the start check passes and status says nothing is left', async () => {
    await checkLegacyLayout(redis, prefix, PARTITIONS);
    for (const s of await status(target)) {
      expect(s).to.include({ legacyStreams: 0, lag: 0, pending: 0, deadLetters: 0, markers: 0 });
    }
  });

  it('when legacy work remains, then the start check refuses with BW_ERR_LAYOUT naming the script, also for dead letters alone', async () => {
    await seed();
    const refusal = async (): Promise<BotwireError> => {
      try {
        await checkLegacyLayout(redis, prefix, PARTITIONS);
      } catch (error) {
        return error as BotwireError;
      }
      throw new Error('the start check passed');
    };
    const first = await refusal();
    expect(first).to.be.instanceOf(BotwireError);
    expect(first.code).to.equal('BW_ERR_LAYOUT');
    expect(first.message).to.include('migrate-stream-layout.sh');
    expect(first.message).to.include('channel: 1 unread, 1 pending');
    expect(first.message).to.include('flow: 2 unread, 0 pending');

    // Everything read but nothing acknowledged: pending work alone refuses too.
    await readGroup('channel', 0, '>');
    await readGroup('flow', 2, '>');
    const pendingOnly = await refusal();
    expect(pendingOnly.message).to.include('channel: 0 unread, 2 pending');
    expect(pendingOnly.message).to.include('flow: 0 unread, 2 pending');

    while ((await oldWorkersOnce()) > 0);
    const deadOnly = await refusal();
    expect(deadOnly.code).to.equal('BW_ERR_LAYOUT');
    expect(deadOnly.message).to.include('indexer: 3 dead letters');
  });

  it('a worker started through the kit refuses to consume on an undrained former layout, and consumes after the switch', async () => {
    await seed();
    const config = loadConfig({
      REDIS_URL: mode.url(),
      STREAM_PREFIX: prefix,
      TOPIC_PARTITIONS: String(PARTITIONS),
      HEALTH_FILE: '',
    });
    const logger = createLogger({ component: 'indexer', level: 'silent' });
    const refused = createKit(config, logger, { name: 'botwire-test-indexer' });
    const error = await consume(refused, 'indexer', async () => undefined).then(
      () => expect.fail('the worker started'),
      (e: unknown) => e as BotwireError,
    );
    expect(error.code).to.equal('BW_ERR_LAYOUT');
    refused.redis.disconnect();

    while ((await oldWorkersOnce()) > 0);
    await switchLayout(target);
    const kit = createKit(config, logger, { name: 'botwire-test-indexer' });
    const service = await consume(kit, 'indexer', async () => undefined);
    await service.close();
  });

  it('the api refuses to start on an undrained former layout (no intake into the new one), and starts after the switch', async () => {
    await seed();
    const settings = {
      REDIS_URL: mode.url(),
      STREAM_PREFIX: prefix,
      TOPIC_PARTITIONS: String(PARTITIONS),
    };
    const error = await startTestApi(settings).then(
      async (api) => {
        await api.stop();
        return expect.fail('the api started');
      },
      (e: unknown) => e as BotwireError,
    );
    expect(error.code).to.equal('BW_ERR_LAYOUT');

    while ((await oldWorkersOnce()) > 0);
    await switchLayout(target);
    const api = await startTestApi(settings);
    await api.stop();
  });

  it('status reports each topic: lag, pending, dead letters, markers, and whether the new layout is in use', async () => {
    await seed();
    await redis.xadd(newKeys('language').partitions[3]!, '*', 'data', '{}');
    const byTopic = new Map((await status(target)).map((s) => [s.topic, s]));
    expect(byTopic.get('channel')).to.include({ legacyStreams: 4, lag: 1, pending: 1, markers: 1 });
    expect(byTopic.get('flow')).to.include({ lag: 2, pending: 0, newStreams: 0 });
    expect(byTopic.get('indexer')).to.include({ deadLetters: 3, markers: 1, legacyStreams: 0 });
    expect(byTopic.get('language')).to.include({ newStreams: 1 });
  });

  it('drain times out while work remains, and succeeds once the old workers have acknowledged everything, their chain included', async () => {
    await seed();
    const started = Date.now();
    expect(await drain(target, { timeoutS: 1.5 })).to.equal(false);
    expect(Date.now() - started).to.be.at.least(900);
    expect(lines.join('\n')).to.include('channel 1 unread, 1 pending');

    // The old workers run while drain waits: each round hands channel turns on to flow.
    let running = true;
    const workers = (async () => {
      while (running) {
        await oldWorkersOnce();
        await sleep(150);
      }
    })();
    try {
      expect(await drain(target, { timeoutS: 20 })).to.equal(true);
    } finally {
      running = false;
      await workers;
    }
    const state = await readLegacyState(
      redis,
      prefix,
      new Map<Topic, number[]>([
        ['channel', [0, 1, 2, 3]],
        ['flow', [0, 1, 2, 3]],
      ]),
    );
    for (const p of state.partitions) expect(p, p.stream).to.include({ lag: 0, pending: 0 });
    // The two channel turns left went on to flow, and flow read them too.
    expect(await redis.xlen(legacy('flow', 0))).to.equal(2);
  });

  it('switch refuses until drained and while old workers hold leases; then copies markers to every partition, moves dead letters, deletes the legacy keys; a second switch changes nothing', async () => {
    await seed();
    expect(deadLetterPartition('not json {', PARTITIONS)).to.equal(0);
    await switchLayout(target).then(
      () => expect.fail('switch ran on an undrained layout'),
      (error: unknown) => expect(error).to.be.instanceOf(NotDrainedError),
    );
    expect(await redis.exists(legacy('channel', 0))).to.equal(1);

    while ((await oldWorkersOnce()) > 0);
    const lease = LEGACY_LAYOUT.lease(prefix, 'flow', 1);
    await redis.set(lease, CONSUMER, 'PX', 60_000);
    await switchLayout(target).then(
      () => expect.fail('switch ran while an old worker held a lease'),
      (error: unknown) => expect((error as Error).message).to.include('leases'),
    );
    await redis.del(lease); // the old worker stopped

    // A letter already copied to its partition (under its id) but still in the legacy stream:
    // what a restored backup of the legacy stream would leave. It is not duplicated.
    const dead = (p: number): string => newKeys('indexer').dead(p);
    const aData = JSON.stringify(indexerMessage(letters.a.key));
    await redis.xadd(dead(1), letters.a.id, ...deadFields(prefix, aData, '1699999999999-1'));

    const result = await switchLayout(target);
    expect(result).to.include({ markers: 2, deadLetters: 3 });

    // Markers: under every partition, with the TTL they had.
    for (let p = 0; p < PARTITIONS; p += 1) {
      const indexerTtl = await redis.pttl(newKeys('indexer').seen(p, 'tg:1'));
      expect(indexerTtl).to.be.within(3_590_000, 3_600_000);
      const channelTtl = await redis.pttl(newKeys('channel').seen(p, 'tg:2'));
      expect(channelTtl).to.be.within(80_000, 90_000);
      expect(await redis.get(newKeys('channel').seen(p, 'tg:2'))).to.equal('1');
    }

    // Dead letters: in the partition of their ordering key (0 for non-JSON data), fields intact.
    const expected: [number, string, string][] = [
      [1, letters.a.id, aData],
      [2, letters.b.id, JSON.stringify(indexerMessage(letters.b.key))],
      [0, letters.junk.id, 'not json {'],
    ];
    for (const [p, id, data] of expected) {
      const entries = await redis.xrange(dead(p), '-', '+');
      expect(entries, `partition ${p}`).to.have.length(1);
      expect(entries[0]![0]).to.equal(id);
      expect(entries[0]![1]).to.deep.equal(deadFields(prefix, data, `1699999999999-${id.at(-3)}`));
    }
    expect(await redis.xlen(dead(3))).to.equal(0);

    // The former layout is gone; the member set stays.
    for (const keys of (await findLegacyKeys(redis, prefix)).values()) {
      expect(keys).to.deep.equal({ streams: [], leases: [], failures: [], dead: [], markers: 0 });
    }
    expect(await redis.exists(LEGACY_LAYOUT.failures(prefix, 'channel'))).to.equal(0);
    expect(await redis.exists(LEGACY_LAYOUT.dead(prefix, 'indexer'))).to.equal(0);
    expect(await redis.zscore(`${prefix}:{channel}:members`, 'new-worker')).to.not.equal(null);
    await checkLegacyLayout(redis, prefix, PARTITIONS);

    // A second switch finds nothing to do and leaves the keys as they are.
    const keysBefore = await allKeys(redis, prefix);
    expect(await switchLayout(target)).to.deep.equal({ markers: 0, deadLetters: 0, deleted: 0 });
    expect(await allKeys(redis, prefix)).to.deep.equal(keysBefore);
    for (const [p] of expected) expect(await redis.xlen(dead(p))).to.equal(1);
  });

  it('after switch, publishOnce through the producer refuses an update id that had a legacy marker, whatever its partition', async () => {
    await seed();
    while ((await oldWorkersOnce()) > 0);
    await switchLayout(target);
    const producer = new Producer({
      redis,
      schemas: new SchemaRegistry(),
      prefix,
      maxLen: 1000,
      partitions: PARTITIONS,
    });
    for (let p = 0; p < PARTITIONS; p += 1) {
      const [again] = await producer.publishOnce(
        'indexer',
        [{ id: 'tg:1', message: indexerMessage(keyIn(p)) }],
        60,
      );
      expect(again, `partition ${p}`).to.equal(null);
    }
    const [fresh] = await producer.publishOnce(
      'indexer',
      [{ id: 'tg:new', message: indexerMessage(keyIn(1)) }],
      60,
    );
    expect(fresh).to.be.a('string');
    expect(await redis.xlen(newKeys('indexer').partitions[1]!)).to.equal(1);
  });

  it('the script: status prints each topic, drain exits 1 on timeout with a clear line, switch exits 1 while undrained', async () => {
    await seed();
    const env = {
      REDIS_URL: mode.url(),
      STREAM_PREFIX: prefix,
      TOPIC_PARTITIONS: String(PARTITIONS),
      ENV_FILE: '/nonexistent/.env-test',
      BW_SETUP_DONE: '1',
    };
    const script = (...args: string[]) => run('./scripts/migrate-stream-layout.sh', args, { env });

    const shown = await script('status');
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout).to.include(
      'channel: former layout 4 streams, 1 unread, 1 pending, 0 dead letters, 1 dedupe markers; new layout not in use',
    );

    const drained = await script('drain', '--timeout', '1');
    expect(drained.code).to.equal(1);
    expect(drained.stderr).to.include('not drained after 1 s');

    const switched = await script('switch');
    expect(switched.code).to.equal(1);
    expect(switched.stderr).to.include('not drained');

    const usage = await script('drain', '--timeout');
    expect(usage.code).to.equal(2);

    // The image's entry point runs the same module (no env file in the image).
    const image = await run('sh', ['scripts/container-entrypoint.sh', 'stream-layout', 'status'], {
      env,
    });
    expect(image.code, image.stderr).to.equal(0);
    expect(image.stdout).to.include('flow: former layout 4 streams, 2 unread, 0 pending');
  });
});

/** Every key under `prefix` (on every master of a cluster), sorted. */
async function allKeys(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for (const node of mastersOf(redis)) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
  }
  return keys.sort();
}

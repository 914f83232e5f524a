import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { listDeadLetters, replayDeadLetters } from '../src/shared/bus/dead-letters.ts';
import { Producer } from '../src/shared/bus/producer.ts';
import { topicKeys, type TopicKeys } from '../src/shared/bus/topics.ts';
import { BotwireError } from '../src/shared/errors.ts';
import type { Redis } from '../src/shared/redis.ts';
import { start } from './support/run.ts';
import { busFixture, type BusFixture, type ConsumerOverrides } from './support/bus.ts';
import { forEachRedisMode } from './support/redis-modes.ts';
import { dropPrefix, waitFor } from './support/services.ts';

interface IndexerMessage {
  collection_name: string;
  files: string[];
  ordering_key?: string;
}

const PARTITIONS = 4;
const msg = (name: string, key?: string): IndexerMessage => ({
  collection_name: name,
  files: ['a.pdf'],
  ...(key ? { ordering_key: key } : {}),
});

forEachRedisMode('topic bus', (mode) => {
  let bus: BusFixture<IndexerMessage>;
  let redis: Redis;
  let prefix: string;
  let producer: Producer;
  let keys: TopicKeys;
  const consumer = (overrides: ConsumerOverrides<IndexerMessage>) => bus.consumer(overrides);
  const pending = () => bus.pending();
  /** Entries in `streams` together. */
  const lengthOf = async (streams: readonly string[]): Promise<number> => {
    let total = 0;
    for (const stream of streams) total += await redis.xlen(stream);
    return total;
  };
  const entries = async () => {
    const all: { id: string; data: string }[] = [];
    for (const stream of keys.partitions) {
      for (const [id, fields] of await redis.xrange(stream, '-', '+'))
        all.push({ id, data: fields[1]! });
    }
    return all;
  };

  /**
   * A process running `test/fixtures/<file>` on this test's Redis and prefix, once it said
   * "ready"; the caller kills it.
   */
  const fixture = async (file: string, env: Record<string, string>) => {
    const child = start('node', ['--import', 'tsx', `test/fixtures/${file}`], {
      env: { REDIS_URL: mode.url(), STREAM_PREFIX: prefix, PARTITIONS: String(PARTITIONS), ...env },
    });
    try {
      await waitFor(() => child.stdout().includes('ready'), {
        timeoutMs: 15_000,
        what: `${file} ready`,
      });
    } catch (error) {
      child.child.kill('SIGKILL');
      throw error;
    }
    return child;
  };

  beforeEach(() => {
    bus = busFixture<IndexerMessage>({
      topic: 'indexer',
      partitions: PARTITIONS,
      redisUrl: mode.url(),
    });
    ({ redis, prefix, producer, keys } = bus);
  });

  afterEach(() => bus.close());

  describe('producer', () => {
    it('when a message fits its schema, then it is XADDed as JSON in the field data', async () => {
      const id = await producer.publish('indexer', msg('faq', 'conversation-1'));
      expect(await entries()).to.deep.equal([
        { id, data: JSON.stringify(msg('faq', 'conversation-1')) },
      ]);
    });

    it('when one message of a batch fails its schema, then BW_ERR_MESSAGE_INVALID and nothing is written', async () => {
      const error = await producer
        .publishMany([
          { topic: 'indexer', message: msg('ok') },
          { topic: 'indexer', message: { collection_name: 'x', files: [] } },
        ])
        .catch((e: unknown) => e);
      expect(error).to.be.instanceOf(BotwireError);
      expect((error as BotwireError).code).to.equal('BW_ERR_MESSAGE_INVALID');
      expect((error as BotwireError).message).to.contain('/files');
      expect(await entries()).to.deep.equal([]);
    });

    it('when messages share an ordering key, then they all go to one partition, in order', async () => {
      const names = Array.from({ length: 10 }, (_, i) => `k${i}`);
      await producer.publishMany(
        names.map((n) => ({ topic: 'indexer', message: msg(n, 'chat-42') })),
      );
      const used = [];
      for (const stream of keys.partitions) if ((await redis.xlen(stream)) > 0) used.push(stream);
      expect(used).to.have.length(1);
      const rows = await redis.xrange(used[0]!, '-', '+');
      expect(
        rows.map(([, f]) => (JSON.parse(f[1]!) as IndexerMessage).collection_name),
      ).to.deep.equal(names);
    });

    it("a partition's keys carry the partition as their Redis Cluster hash tag", () => {
      expect(keys.partitions).to.deep.equal([0, 1, 2, 3].map((p) => `${prefix}:{indexer:p${p}}`));
      expect(keys.dead(1)).to.equal(`${prefix}:{indexer:p1}:dead`);
      expect(keys.failures(3)).to.equal(`${prefix}:{indexer:p3}:failures`);
      expect(keys.lease(2)).to.equal(`${prefix}:{indexer:p2}:lease`);
      expect(keys.seen(0, 'm1')).to.equal(`${prefix}:{indexer:p0}:seen:m1`);
      expect(() => keys.lease(4)).to.throw(RangeError);
    });
  });

  describe('consumer', () => {
    it('when the handler succeeds, then its output is published and the entry acknowledged', async () => {
      const seen: string[] = [];
      await consumer({
        handler: async (message) => {
          seen.push(message.collection_name);
          return [
            { topic: 'retriver', message: { source: 'test', collection_name: 'faq', query: 'hi' } },
          ];
        },
      }).start();
      await producer.publish('indexer', msg('faq'));
      const retriver = topicKeys(prefix, 'retriver', PARTITIONS).partitions;
      await waitFor(async () => (await lengthOf(retriver)) === 1);
      expect(seen).to.deep.equal(['faq']);
      await waitFor(async () => (await pending()) === 0, { what: 'ack' });
    });

    it('when publishing the output fails, then the entry is not acknowledged and is handled again until the publish succeeds', async () => {
      // Every retriver partition is a plain string, so XADD answers WRONGTYPE: the XACK that
      // follows a successful publish must not be sent.
      const retriver = topicKeys(prefix, 'retriver', PARTITIONS).partitions;
      for (const stream of retriver) await redis.set(stream, 'not a stream');
      let calls = 0;
      await consumer({
        handler: async () => {
          calls += 1;
          return [
            { topic: 'retriver', message: { source: 'test', collection_name: 'faq', query: 'hi' } },
          ];
        },
      }).start();
      await producer.publish('indexer', msg('faq'));
      await waitFor(() => calls >= 2, { what: 'a second attempt' });
      expect(await pending()).to.equal(1);
      for (const stream of retriver) await redis.del(stream); // one slot each
      await waitFor(async () => (await pending()) === 0, { what: 'ack' });
      expect(await lengthOf(retriver)).to.equal(1);
      expect(await listDeadLetters(redis, prefix, 'indexer', PARTITIONS)).to.have.length(0);
    });

    it('when entries are not JSON or fail the schema, then they are dead-lettered at once with the code', async () => {
      let calls = 0;
      await consumer({ handler: async () => void (calls += 1) }).start();
      const stream = keys.partitions[0]!;
      await redis.xadd(stream, '*', 'data', '{not json');
      await redis.xadd(stream, '*', 'data', JSON.stringify({ collection_name: 'x' }));
      await redis.xadd(stream, '*', 'other', 'field');
      const letters = await waitFor(async () => {
        const all = await listDeadLetters(redis, prefix, 'indexer', PARTITIONS);
        return all.length === 3 ? all : undefined;
      });
      expect(letters.map((l) => l.code)).to.deep.equal([
        'BW_ERR_MESSAGE_MALFORMED',
        'BW_ERR_MESSAGE_INVALID',
        'BW_ERR_MESSAGE_MALFORMED',
      ]);
      expect(letters[1]!.reason).to.contain('/files is required');
      expect(letters[0]!.data).to.equal('{not json');
      expect(letters.every((l) => l.deliveries === 1)).to.be.true;
      expect(calls).to.equal(0);
      expect(await pending()).to.equal(0);
    });

    it('when the handler always throws, then the entry is dead-lettered after maxDeliveries with the last reason', async () => {
      let calls = 0;
      await consumer({
        handler: async () => {
          calls += 1;
          throw new Error(`provider down (attempt ${calls})`);
        },
      }).start();
      await producer.publish('indexer', msg('faq'));
      const [letter] = await waitFor(async () => {
        const all = await listDeadLetters(redis, prefix, 'indexer', PARTITIONS);
        return all.length > 0 ? all : undefined;
      });
      expect(calls).to.equal(3);
      expect(letter!.deliveries).to.equal(3);
      expect(letter!.code).to.equal('BW_ERR_HANDLER');
      expect(letter!.reason).to.match(
        /failed 3 deliveries; last failure: BW_ERR_HANDLER: provider down \(attempt 3\)/,
      );
      expect(JSON.parse(letter!.data)).to.deep.equal(msg('faq'));
      expect(await pending()).to.equal(0);
      await sleep(300);
      expect(calls, 'no delivery after the dead letter').to.equal(3);
    });

    it('when the handler throws an unrecoverable error, then the entry is dead-lettered without a retry', async () => {
      let calls = 0;
      await consumer({
        handler: async () => {
          calls += 1;
          throw new BotwireError('BW_ERR_MESSAGE_INVALID', 'no such collection');
        },
      }).start();
      await producer.publish('indexer', msg('faq'));
      const [letter] = await waitFor(async () => {
        const all = await listDeadLetters(redis, prefix, 'indexer', PARTITIONS);
        return all.length > 0 ? all : undefined;
      });
      expect(calls).to.equal(1);
      expect(letter!.code).to.equal('BW_ERR_MESSAGE_INVALID');
      expect(letter!.reason).to.contain('no such collection');
    });

    it('when the handler fails because Postgres or Redis cannot be reached, more often than maxDeliveries, then the entry is not dead-lettered and is handled once they are back', async function () {
      // Six outages back off 20, 40, 80, 160, 320 and 640 ms, more on a busy machine. The lease is
      // long: a partition lost to a late renewal (the fixture's 300 ms lease, under load) is read
      // again as a redelivery, as it must be, which is not what this test is about.
      this.timeout(150_000);
      const seen: number[] = [];
      const outage = [
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
        Object.assign(new Error('terminating connection due to administrator command'), {
          code: '57P01',
        }),
        new Error('Connection terminated unexpectedly'),
        new BotwireError('BW_ERR_UNAVAILABLE', 'the bot directory cannot reach the database'),
        new AggregateError(
          [Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' })],
          'connect failed',
        ),
        new Error('Connection is closed.'),
      ];
      await consumer({
        leaseMs: 10_000,
        handler: async (_m, ctx) => {
          seen.push(ctx.deliveries);
          const failure = outage[seen.length - 1];
          if (failure) throw failure;
        },
      }).start();
      await producer.publish('indexer', msg('faq'));
      await waitFor(async () => seen.length === outage.length + 1 && (await pending()) === 0, {
        timeoutMs: 140_000,
        what: () => `the entry handled after the outage (handled ${seen.length} times so far)`,
      });
      expect(seen, 'an outage uses up no delivery').to.deep.equal(outage.map(() => 1).concat(1));
      expect(await listDeadLetters(redis, prefix, 'indexer', PARTITIONS)).to.have.length(0);
    });

    it('when an outside HTTP call fails to connect, then it counts as a failed delivery (not an outage of ours)', async () => {
      let calls = 0;
      await consumer({
        handler: async () => {
          calls += 1;
          throw new TypeError('fetch failed', {
            cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
          });
        },
      }).start();
      await producer.publish('indexer', msg('faq'));
      const [letter] = await waitFor(async () => {
        const all = await listDeadLetters(redis, prefix, 'indexer', PARTITIONS);
        return all.length > 0 ? all : undefined;
      });
      expect(calls).to.equal(3);
      expect(letter!.reason).to.match(
        /failed 3 deliveries; last failure: BW_ERR_HANDLER: fetch failed/,
      );
    });

    it('when a process loses its partition while a read is out and takes it again, then nothing stays pending and the key keeps its order', async () => {
      // e0 fails once; meanwhile its partition's lease is taken by an intruder for 250 ms, so e0
      // is left pending. The read the process had out when it lost the partition comes back
      // with e1 after the partition was taken again: it must not be read as the new tenure's
      // pending entries (e0 would be skipped for good), nor go ahead of e0.
      const single = new Producer({
        redis,
        schemas: bus.schemas,
        prefix,
        maxLen: 10_000,
        partitions: 1,
      });
      const keys1 = topicKeys(prefix, 'indexer', 1);
      const handled: string[] = [];
      await consumer({
        producer: single,
        partitions: 1,
        blockMs: 1500,
        leaseMs: 300,
        retryBaseMs: 200,
        handler: async (m, ctx) => {
          if (m.collection_name === 'e0' && ctx.deliveries === 1) {
            await redis.set(keys1.lease(0), 'intruder', 'PX', 250);
            throw new Error('transient');
          }
          handled.push(m.collection_name);
        },
      }).start();
      await single.publish('indexer', msg('e0', 'A'));
      await waitFor(async () => (await redis.get(keys1.lease(0))) === 'intruder', {
        what: 'the intruder',
      });
      await waitFor(async () => (await redis.get(keys1.lease(0))) === 'c1', {
        timeoutMs: 5000,
        what: 'the partition taken again',
      });
      await single.publish('indexer', msg('e1', 'A'));
      await waitFor(
        async () =>
          handled.length >= 2 &&
          Number(((await redis.xpending(keys1.partitions[0]!, 'indexer')) as [number])[0]) === 0,
        { timeoutMs: 10_000, what: 'both entries handled, nothing pending' },
      );
      expect(handled).to.deep.equal(['e0', 'e1']);
    });

    it('when a handler stalls the event loop for twice the lease while messages arrive, then every message is answered and none stays pending with the live consumer', async function () {
      // Bounds for a busy machine (a second suite beside this one): the publisher starts under tsx.
      this.timeout(150_000);
      const leaseMs = 500;
      // Publishes while this process is blocked, so the read out across the stall is handed them.
      const publisher = await fixture('publish-on-signal.ts', { COUNT: '8' });
      try {
        const handled = new Set<string>();
        await consumer({
          leaseMs,
          blockMs: 4 * leaseMs,
          handler: async (m) => {
            if (m.collection_name === 'stall') {
              await redis.set(`${prefix}:stalling`, '1');
              // The process does nothing else for 2 × the lease: no timer, no reply is handled.
              Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2 * leaseMs);
            }
            handled.add(m.collection_name);
          },
        }).start();
        await producer.publishMany(
          ['before-0', 'before-1', 'stall'].map((n) => ({ topic: 'indexer', message: msg(n, n) })),
        );
        await waitFor(() => publisher.stdout().includes('published'), {
          timeoutMs: 60_000,
          what: 'the publisher',
        });
        const expected = [
          'before-0',
          'before-1',
          'stall',
          ...[0, 1, 2, 3, 4, 5, 6, 7].map((n) => `during-${n}`),
        ];
        await waitFor(async () => handled.size === expected.length && (await pending()) === 0, {
          timeoutMs: 60_000,
          what: () =>
            `every message handled, nothing pending (handled: ${[...handled].join(', ')})`,
        });
        expect([...handled].sort()).to.deep.equal(expected.sort());
      } finally {
        publisher.child.kill('SIGKILL');
      }
    });

    it("when an entry is handed to the consumer's name by a read whose answer never reached it, then it is read again and handled while the consumer keeps its partitions", async () => {
      const handled: string[] = [];
      await consumer({
        blockMs: 1000,
        handler: async (m) => {
          handled.push(m.collection_name);
        },
      }).start();
      await producer.publish('indexer', msg('first', 'K'));
      await waitFor(() => handled.includes('first'), { what: 'the first entry handled' });
      // One transaction: the entry is added and handed to c1 before its blocked read can see it,
      // as when a read's answer is lost on the way (a connection dropped mid-reply).
      const stream = keys.partitions[0]!;
      const data = JSON.stringify(msg('orphan'));
      const [added, handed] = (await redis
        .multi()
        .xadd(stream, '*', 'data', data)
        .xreadgroup('GROUP', 'indexer', 'c1', 'COUNT', 1, 'STREAMS', stream, '>')
        .exec())!;
      expect([added?.[0], handed?.[0]]).to.deep.equal([null, null]);
      expect(JSON.stringify(handed?.[1])).to.include('orphan');
      await waitFor(async () => handled.includes('orphan') && (await pending()) === 0, {
        timeoutMs: 10_000,
        what: 'the orphaned entry handled, nothing pending',
      });
    });

    it('when a handler fails once, then the entry is retried after a backoff and succeeds', async () => {
      const deliveries: number[] = [];
      await consumer({
        handler: async (_m, ctx) => {
          deliveries.push(ctx.deliveries);
          if (ctx.deliveries === 1) throw new Error('transient');
        },
      }).start();
      await producer.publish('indexer', msg('faq'));
      await waitFor(() => deliveries.length === 2);
      await waitFor(async () => (await pending()) === 0);
      expect(deliveries).to.deep.equal([1, 2]);
      expect(await listDeadLetters(redis, prefix, 'indexer', PARTITIONS)).to.have.length(0);
    });

    it('when messages share an ordering key, then they are handled one at a time in stream order', async () => {
      const log: string[] = [];
      let active = 0;
      let overlap = false;
      await consumer({
        concurrency: 8,
        handler: async (m) => {
          active += 1;
          if (active > 1) overlap = true;
          await sleep(5);
          log.push(m.collection_name);
          active -= 1;
        },
      }).start();
      const names = Array.from({ length: 20 }, (_, i) => `m${i}`);
      await producer.publishMany(
        names.map((n) => ({ topic: 'indexer', message: msg(n, 'one-chat') })),
      );
      await waitFor(() => log.length === 20);
      expect(log).to.deep.equal(names);
      expect(overlap).to.be.false;
    });

    it('when lingerMs is set, then entries arriving during the linger after a busy read are handed over together, and an idle read does not wait', async () => {
      // Wide margins (a 2 s linger, entries 100 ms apart), so a busy machine cannot blur them.
      const lingerMs = 2000;
      const started = new Map<string, number>();
      await consumer({
        lingerMs,
        handler: async (m) => {
          started.set(m.collection_name, performance.now());
        },
      }).start();
      // Idle: the blocked read returns as the entry arrives.
      const publishedAt = performance.now();
      await producer.publish('indexer', msg('first', 'k-first'));
      await waitFor(() => started.has('first'));
      expect(started.get('first')! - publishedAt).to.be.below(lingerMs / 2);
      // Busy: the read that found `first` is followed by the linger; entries published 100 ms
      // apart meanwhile come back together at its end (without the linger, 400 ms or more apart).
      const names = ['a', 'b', 'c', 'd', 'e'];
      for (const name of names) {
        await producer.publish('indexer', msg(name, `k-${name}`));
        await sleep(100);
      }
      await waitFor(() => names.every((n) => started.has(n)), { timeoutMs: 3 * lingerMs });
      const times = names.map((n) => started.get(n)!);
      expect(Math.max(...times) - Math.min(...times)).to.be.below(200);
      expect(Math.min(...times) - started.get('first')!).to.be.at.least(0.8 * lingerMs);
    });

    it('when a message fails and is retried, then the later messages of its key wait for it', async () => {
      const log: string[] = [];
      let failedOnce = false;
      await consumer({
        concurrency: 8,
        handler: async (m) => {
          if (m.collection_name === 'first' && !failedOnce) {
            failedOnce = true;
            throw new Error('transient');
          }
          log.push(m.collection_name);
        },
      }).start();
      await producer.publishMany(
        ['first', 'second', 'third'].map((n) => ({ topic: 'indexer', message: msg(n, 'chat-7') })),
      );
      await waitFor(() => log.length === 3);
      expect(log).to.deep.equal(['first', 'second', 'third']);
    });

    it('when two consumers share a topic, then they split the partitions and each key keeps its order', async function () {
      this.timeout(150_000); // bounds for a busy machine (a second suite beside this one)
      const seen = new Map<string, number[]>();
      const handler = async (m: IndexerMessage) => {
        await sleep(Math.random() * 4);
        const [key, n] = m.collection_name.split('.') as [string, string];
        seen.set(key, [...(seen.get(key) ?? []), Number(n)]);
      };
      const a = consumer({ name: 'a', concurrency: 4, handler });
      const b = consumer({ name: 'b', concurrency: 4, handler });
      await a.start();
      await b.start();
      await waitFor(() => a.partitions.length === 2 && b.partitions.length === 2, {
        timeoutMs: 60_000,
        what: () =>
          `an even split (a holds ${a.partitions.join(',')}, b ${b.partitions.join(',')})`,
      });
      const keysUsed = Array.from({ length: 12 }, (_, i) => `chat${i}`);
      const messages = [];
      for (let n = 0; n < 15; n += 1) {
        for (const key of keysUsed)
          messages.push({ topic: 'indexer' as const, message: msg(`${key}.${n}`, key) });
      }
      await producer.publishMany(messages);
      const handledCount = (): number =>
        [...seen.values()].reduce((sum, list) => sum + list.length, 0);
      await waitFor(() => handledCount() === 180, {
        timeoutMs: 60_000,
        what: () => `180 messages handled (${handledCount()} so far)`,
      });
      for (const key of keysUsed) expect(seen.get(key), key).to.deep.equal([...Array(15).keys()]);
      expect([...a.partitions, ...b.partitions].sort()).to.deep.equal([0, 1, 2, 3]);
    });

    it('when one of two consumers closes, then the other takes over its partitions', async () => {
      const seen: string[] = [];
      const a = consumer({ name: 'a', handler: async (m) => void seen.push(m.collection_name) });
      const b = consumer({ name: 'b', handler: async (m) => void seen.push(m.collection_name) });
      await a.start();
      await b.start();
      await waitFor(() => a.partitions.length === 2 && b.partitions.length === 2, {
        what: 'an even split',
      });
      await b.close();
      await waitFor(() => a.partitions.length === 4, { what: 'a to take all partitions' });
      await producer.publishMany(
        Array.from({ length: 8 }, (_, i) => ({
          topic: 'indexer' as const,
          message: msg(`x${i}`, `k${i}`),
        })),
      );
      await waitFor(() => seen.length === 8);
    });

    it('when a second consumer joins mid-conversation, then no two messages of a key overlap and order holds', async () => {
      const log: { n: number; start: number; end: number; by: string }[] = [];
      const handler = (by: string) => async (m: IndexerMessage) => {
        const start = Date.now();
        await sleep(30);
        log.push({ n: Number(m.collection_name.slice(1)), start, end: Date.now(), by });
      };
      const a = consumer({ name: 'a', handler: handler('a') });
      await a.start();
      const total = 40;
      const publishing = (async () => {
        for (let n = 0; n < total; n += 1) {
          await producer.publish('indexer', msg(`n${n}`, 'one-key'));
          await sleep(15);
        }
      })();
      await sleep(150);
      await consumer({ name: 'b', handler: handler('b') }).start();
      await publishing;
      await waitFor(() => log.length === total, { timeoutMs: 20_000, what: 'all handled' });
      expect(log.map((l) => l.n)).to.deep.equal([...Array(total).keys()]);
      for (let i = 1; i < log.length; i += 1) {
        expect(log[i]!.start, `message ${i} started before ${i - 1} ended`).to.be.at.least(
          log[i - 1]!.end,
        );
      }
    });

    it('when a fourth consumer joins three under traffic, then only its share of the partitions (2 of 8) changes hands, each once, and every message is handled once, in order per key', async () => {
      const seen = new Map<string, number[]>();
      const handler = async (m: IndexerMessage) => {
        await sleep(Math.random() * 4);
        const [key, n] = m.collection_name.split('.') as [string, string];
        seen.set(key, [...(seen.get(key) ?? []), Number(n)]);
      };
      // Eight partitions: with four, even assigning p to the (p mod n)-th member moves one only.
      const wide = busFixture<IndexerMessage>({
        topic: 'indexer',
        partitions: 8,
        redisUrl: mode.url(),
      });
      try {
        const group = ['a', 'b', 'c'].map((name) =>
          wide.consumer({ name, concurrency: 4, handler }),
        );
        for (const c of group) await c.start();
        const owners = () => {
          const by: (string | undefined)[] = new Array<string | undefined>(8).fill(undefined);
          group.forEach((c, i) => c.partitions.forEach((p) => (by[p] = 'abcd'[i])));
          return by;
        };
        await waitFor(
          () =>
            owners().every(Boolean) &&
            group
              .map((c) => c.partitions.length)
              .sort()
              .join() === '2,3,3',
          { what: 'the three settled on 3, 3 and 2' },
        );
        const before = owners();
        // Each partition's readers as they change, sampled while the fourth joins.
        const changes = before.map(() => 0);
        let last = before;
        const sampler = setInterval(() => {
          const now = owners();
          now.forEach((o, p) => {
            if (o && o !== last[p]) changes[p]! += 1;
          });
          last = now.map((o, p) => o ?? last[p]);
        }, 5);
        const keysUsed = Array.from({ length: 12 }, (_, i) => `chat${i}`);
        const publishing = (async () => {
          for (let n = 0; n < 15; n += 1) {
            await wide.producer.publishMany(
              keysUsed.map((key) => ({
                topic: 'indexer' as const,
                message: msg(`${key}.${n}`, key),
              })),
            );
            await sleep(20);
          }
        })();
        await sleep(60);
        group.push(wide.consumer({ name: 'd', concurrency: 4, handler }));
        await group[3]!.start();
        await publishing;
        await waitFor(() => group.every((c) => c.partitions.length === 2), {
          what: 'two partitions each',
        });
        const handledCount = (): number =>
          [...seen.values()].reduce((sum, list) => sum + list.length, 0);
        await waitFor(() => handledCount() === 180, {
          timeoutMs: 60_000,
          what: () => `180 messages handled (${handledCount()} so far)`,
        });
        clearInterval(sampler);
        for (const key of keysUsed) expect(seen.get(key), key).to.deep.equal([...Array(15).keys()]);
        const after = owners();
        const moved = after.filter((o, p) => o !== before[p]);
        expect(moved).to.deep.equal(['d', 'd']);
        expect(
          changes.reduce((sum, n) => sum + n, 0),
          'reader changes',
        ).to.equal(2);
      } finally {
        await wide.close();
      }
    });

    it('when Redis loses the topic keys under a running consumer, then it recreates them and goes on', async () => {
      const seen: string[] = [];
      await consumer({ handler: async (m) => void seen.push(m.collection_name) }).start();
      await producer.publish('indexer', msg('before'));
      await waitFor(() => seen.length === 1);
      await dropPrefix(redis, prefix); // what a restart of a Redis without persistence looks like
      await sleep(100);
      await producer.publish('indexer', msg('after'));
      await waitFor(() => seen.length === 2, {
        timeoutMs: 10_000,
        what: 'the message sent after the loss',
      });
      expect(seen).to.deep.equal(['before', 'after']);
    });

    it('when closed mid-handler, then the handler finishes and its entry is acknowledged; close is idempotent', async () => {
      let finished = false;
      let begun = false;
      const c = consumer({
        handler: async () => {
          begun = true;
          await sleep(300);
          finished = true;
        },
      });
      await c.start();
      await producer.publish('indexer', msg('slow'));
      await waitFor(() => begun);
      const first = c.close();
      expect(c.close()).to.equal(first);
      await first;
      expect(finished).to.be.true;
      expect(await pending()).to.equal(0);
    });

    it('when a consumer process is SIGKILLed mid-batch, then another consumer reclaims and handles every entry', async function () {
      this.timeout(30_000);
      const proc = await fixture('slow-consumer.ts', {
        CONSUMER_NAME: 'doomed',
        HANDLE_MS: '150',
        LEASE_MS: '1000',
      });
      try {
        const names = Array.from({ length: 25 }, (_, i) => `n${i}`);
        await producer.publishMany(names.map((n) => ({ topic: 'indexer', message: msg(n) })));
        await waitFor(async () => (await redis.scard(`${prefix}:handled`)) >= 3, {
          what: 'some handled',
        });
        proc.child.kill('SIGKILL');
        await proc.exited;
        const handledByChild = await redis.scard(`${prefix}:handled`);
        expect(handledByChild).to.be.lessThan(25);
        expect(await pending(), 'the killed consumer left entries pending').to.be.greaterThan(0);

        await consumer({
          name: 'rescuer',
          handler: async (m) => void (await redis.sadd(`${prefix}:handled`, m.collection_name)),
        }).start();
        await waitFor(async () => (await redis.scard(`${prefix}:handled`)) === 25, {
          timeoutMs: 15_000,
          what: 'all 25 handled',
        });
        expect((await redis.smembers(`${prefix}:handled`)).sort()).to.deep.equal([...names].sort());
        await waitFor(async () => (await pending()) === 0, { what: 'nothing pending' });
      } finally {
        proc.child.kill('SIGKILL'); // never leave the child running when an assertion fails
      }
      expect(await listDeadLetters(redis, prefix, 'indexer', PARTITIONS)).to.have.length(0);
    });
  });

  describe('dead letters', () => {
    it('when a dead letter is replayed, then it returns to the topic and leaves the dead-letter stream', async () => {
      let fail = true;
      const seen: string[] = [];
      await consumer({
        handler: async (m) => {
          if (fail) throw new BotwireError('BW_ERR_MESSAGE_INVALID', 'bug');
          seen.push(m.collection_name);
        },
      }).start();
      await producer.publish('indexer', msg('again'));
      const [letter] = await waitFor(async () => {
        const all = await listDeadLetters(redis, prefix, 'indexer', PARTITIONS);
        return all.length > 0 ? all : undefined;
      });
      fail = false; // "the bug is fixed"
      const result = await replayDeadLetters(
        { redis, producer, prefix, topic: 'indexer', partitions: PARTITIONS, maxLen: 10_000 },
        [letter!.id, '1-1'],
      );
      expect(result.replayed.map((r) => r.deadId)).to.deep.equal([letter!.id]);
      expect(result.refused).to.deep.equal([
        { deadId: '1-1', code: 'BW_ERR_NOT_FOUND', reason: 'no such dead letter' },
      ]);
      await waitFor(() => seen.length === 1);
      expect(seen).to.deep.equal(['again']);
      expect(await listDeadLetters(redis, prefix, 'indexer', PARTITIONS)).to.have.length(0);
    });

    it('when a dead letter still fails the schema, then replay refuses it and keeps it', async () => {
      await redis.xadd(
        keys.dead(0),
        '*',
        'data',
        '{"collection_name":"x"}',
        'code',
        'BW_ERR_MESSAGE_INVALID',
      );
      const [letter] = await listDeadLetters(redis, prefix, 'indexer', PARTITIONS);
      const result = await replayDeadLetters(
        { redis, producer, prefix, topic: 'indexer', partitions: PARTITIONS, maxLen: 10_000 },
        [letter!.id],
      );
      expect(result.replayed).to.have.length(0);
      expect(result.refused[0]!.code).to.equal('BW_ERR_MESSAGE_INVALID');
      expect(result.refused[0]!.reason).to.contain('/files is required');
      expect(await listDeadLetters(redis, prefix, 'indexer', PARTITIONS)).to.have.length(1);
      expect(await entries()).to.deep.equal([]);
    });
  });
});

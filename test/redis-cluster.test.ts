import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, Worker } from 'bullmq';
import { BacklogGauge, topicDepths } from '../src/api/backlog.ts';
import { SessionStore } from '../src/api/admin/session-store.ts';
import { jobsPrefix } from '../src/indexer/worker.ts';
import { jobsConnection } from '../src/shared/jobs-connection.ts';
import { HEARTBEAT_SCRIPT, membersKey, readMembers } from '../src/shared/bus/members.ts';
import { breakerKeys } from '../src/shared/bot-turns.ts';
import { Breaker, BREAKER_SCRIPTS } from '../src/channel/breaker.ts';
import { Pacer, PACING_SCRIPTS } from '../src/channel/pacing.ts';
import { Producer, PRODUCER_SCRIPTS } from '../src/shared/bus/producer.ts';
import { topicKeys, TOPICS, type Topic } from '../src/shared/bus/topics.ts';
import { SETTINGS } from '../src/config.ts';
import { StreamConsumer } from '../src/shared/bus/consumer.ts';
import { ensureGroups } from '../src/shared/bus/group-commands.ts';
import { BotwireError, isUnavailable } from '../src/shared/errors.ts';
import { createLogger } from '../src/shared/logger.ts';
import {
  Cluster,
  createRedis,
  duplicateRedis,
  isCluster,
  mastersOf,
  parseRedisUrl,
  type Redis,
} from '../src/shared/redis.ts';
import { SchemaRegistry } from '../src/shared/schemas.ts';
import { keyInPartition } from './support/bus.ts';
import { forEachRedisMode } from './support/redis-modes.ts';
import {
  liveMasters,
  moveSlot,
  startPrivateCluster,
  type PrivateCluster,
} from './support/private-cluster.ts';
import { dropPrefix, uniquePrefix, waitFor } from './support/services.ts';

const logger = createLogger({ component: 'test', level: 'silent' });

describe('REDIS_URL forms', () => {
  it('when the URL names a cluster, then its seed nodes, user, password and TLS are read', () => {
    expect(
      parseRedisUrl('rediss+cluster://bot:p%40ss@10.0.0.1:7000,[::1]:7001,redis-2'),
    ).to.deep.equal({
      cluster: true,
      tls: true,
      username: 'bot',
      password: 'p@ss',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '::1', port: 7001 },
        { host: 'redis-2', port: 6379 },
      ],
    });
    expect(parseRedisUrl('redis+cluster://:secret@h:1')).to.deep.equal({
      cluster: true,
      tls: false,
      password: 'secret',
      nodes: [{ host: 'h', port: 1 }],
    });
  });

  it('when the URL names one server, then its host, password, TLS and database are read', () => {
    expect(parseRedisUrl('rediss://:pw@cache:6380/2')).to.deep.equal({
      cluster: false,
      tls: true,
      password: 'pw',
      nodes: [{ host: 'cache', port: 6380 }],
      db: 2,
    });
  });

  for (const bad of [
    'redis+cluster://h:1,h:notaport',
    'redis+cluster://h:1/2',
    'redis+cluster://',
    'http://h:1',
  ]) {
    it(`when the URL is ${bad}, then BW_ERR_CONFIG without the URL's password`, () => {
      let thrown: unknown;
      try {
        parseRedisUrl(bad);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).to.be.instanceOf(BotwireError);
      expect((thrown as BotwireError).code).to.equal('BW_ERR_CONFIG');
    });
  }

  for (const message of [
    'MOVED 3999 127.0.0.1:6381',
    'ASK 3999 127.0.0.1:6381',
    'CLUSTERDOWN The cluster is down',
    'TRYAGAIN Multiple keys request during rehashing of slot',
    'Too many Cluster redirections. Last error: Error: Connection is closed.',
    'Failed to refresh slots cache.',
  ]) {
    it(`when a cluster answers "${message.split(' ')[0]}", then it is an outage, not the message's failure`, () => {
      expect(isUnavailable(new Error(message))).to.equal(true);
      expect(
        isUnavailable(new BotwireError('BW_ERR_HANDLER', 'x', { cause: new Error(message) })),
      ).to.equal(false);
    });
  }
});

describe('Redis Cluster (private loopback cluster)', function () {
  this.timeout(60_000);
  let cluster: PrivateCluster;
  let redis: Redis;
  const prefix = uniquePrefix();

  before(async function () {
    this.timeout(120_000);
    cluster = await startPrivateCluster();
  });

  after(async () => {
    if (redis) await dropPrefix(redis, prefix).catch(() => undefined);
    redis?.disconnect();
    await cluster?.close();
  });

  beforeEach(() => {
    redis ??= createRedis(cluster.url, { name: 'botwire-test' });
  });

  /** The master port serving `key` now. */
  const ownerOf = async (key: string): Promise<string> => {
    const slot = Number(await redis.call('CLUSTER', 'KEYSLOT', key));
    await redis.ping();
    const owner = (redis as Cluster).slots[slot]?.[0];
    if (!owner) throw new Error(`no owner of slot ${slot}`);
    return owner;
  };

  it('when REDIS_URL names the cluster, then one connection reaches keys on every master', async () => {
    expect(isCluster(redis)).to.equal(true);
    const owners = new Set<string>();
    for (let i = 0; i < 30; i += 1) {
      const key = `${prefix}:{k${i}}`;
      await redis.set(key, String(i));
      expect(await redis.get(key)).to.equal(String(i));
      owners.add(await ownerOf(key));
    }
    expect(owners.size, 'masters holding the keys').to.equal(3);
    expect(mastersOf(redis)).to.have.length(3);
  });

  it('when the nodes need a password, then the URL gives it to every node', async () => {
    const locked = await startPrivateCluster({ password: 's3cret/+' });
    const client = createRedis(locked.url, { name: 'botwire-test' });
    try {
      for (let i = 0; i < 10; i += 1) await client.set(`{k${i}}`, 'v');
      expect(await client.get('{k9}')).to.equal('v');
      const refused = createRedis(locked.url.replace(/:[^:@/]*@/, ':wrong@'), {
        name: 'botwire-test',
        lazyConnect: true,
      }) as Cluster;
      refused.on('error', () => undefined);
      const error = await refused.connect().then(
        () => undefined,
        (e: unknown) => e,
      );
      refused.disconnect();
      expect(error, 'a wrong password is refused').to.be.instanceOf(Error);
    } finally {
      client.disconnect();
      await locked.close();
    }
  });

  it('when a custom script goes in the same tick as a command for another node on an auto-pipelined connection, then both succeed', async () => {
    const piped = createRedis(cluster.url, {
      name: 'botwire-test',
      enableAutoPipelining: true,
      scripts: { ...PRODUCER_SCRIPTS, ...PACING_SCRIPTS },
    });
    try {
      const producer = new Producer({
        redis: piped,
        schemas: new SchemaRegistry(),
        prefix,
        maxLen: 1000,
        partitions: 4,
      });
      // ioredis would put each script in the pipeline of its first argument, the key count:
      // send a command for that node in the same tick, the script's keys being elsewhere.
      const countNode = await ownerOf('2');
      let topic: Topic | undefined;
      for (const t of TOPICS) {
        if ((await ownerOf(topicKeys(prefix, t, 4).partitions[0]!)) !== countNode) topic = t;
      }
      let other: string | undefined;
      for (let i = 0; !other; i += 1) {
        if ((await ownerOf(`${prefix}:{n${i}}`)) === countNode) other = `${prefix}:{n${i}}`;
      }
      const pace = `${prefix}:pace:{tg:x}`;
      expect(await ownerOf(pace), 'the pace key lies on another node than "2"').to.not.equal(
        countNode,
      );
      expect(topic, 'a topic on another node than "2"').to.not.equal(undefined);
      const pacer = new Pacer(piped);
      const message = { collection_name: 'faq', files: ['a.pdf'], ordering_key: 'k' };
      const [published, set, wait] = await Promise.all([
        producer.publishOnce('indexer', [{ id: 'u1', message }], 60),
        piped.set(other, 'v'),
        pacer.reserve([
          [pace, { intervalMs: 1000, burst: 3 }],
          [`${pace}:1`, { intervalMs: 1000, burst: 3 }],
        ]),
      ]);
      expect(published[0]).to.match(/^\d+-\d+$/);
      expect(set).to.equal('OK');
      expect(wait).to.equal(0);
    } finally {
      piped.disconnect();
    }
  });

  it("when the breaker admits a reply on the cluster, then its pace keys (in other slots) are left to the call's own reservation", async () => {
    const scripted = createRedis(cluster.url, {
      name: 'botwire-test',
      scripts: { ...BREAKER_SCRIPTS, ...PACING_SCRIPTS },
    });
    try {
      const pace = `${prefix}:pace:{tg:c1}:42`;
      expect(await ownerOf(pace)).to.not.equal(await ownerOf(breakerKeys(prefix, 'c1').open));
      const breaker = new Breaker({ redis: scripted, prefix });
      const admission = await breaker.admit('c1', 't1', '{}', false, [
        [pace, { intervalMs: 1000, burst: 3 }],
      ]);
      expect(admission).to.deep.equal({ parked: false, failures: 0 });
      expect(await redis.exists(pace)).to.equal(0);
    } finally {
      scripted.disconnect();
    }
  });

  it('when a cluster connection is duplicated with overrides, then the copy is a cluster with them and keeps the rest', async () => {
    const piped = createRedis(cluster.url, {
      name: 'botwire-test',
      enableAutoPipelining: true,
      scripts: PRODUCER_SCRIPTS,
    });
    const copy = duplicateRedis(piped, {
      connectionName: 'botwire-test:blocking',
      enableAutoPipelining: false,
    });
    try {
      expect(isCluster(copy)).to.equal(true);
      expect((copy as Cluster).options.enableAutoPipelining).to.equal(false);
      for (let i = 0; i < 10; i += 1) await copy.set(`${prefix}:{d${i}}`, 'v');
      for (const node of mastersOf(copy)) {
        expect(await node.client('GETNAME')).to.equal('botwire-test:blocking');
      }
      expect('bwPublishOnce' in copy, 'the scripts go with the copy').to.equal(true);
    } finally {
      piped.disconnect();
      copy.disconnect();
    }
  });

  it("when the indexer's jobs connection is made for the cluster, then a BullMQ queue and worker on it run a job", async () => {
    const jobs = jobsConnection(cluster.url);
    const jobPrefix = jobsPrefix(prefix);
    const queue = new Queue('index', { connection: jobs.connection, prefix: jobPrefix });
    const done: string[] = [];
    const worker = new Worker<{ n: string }>(
      'index',
      async (job) => {
        done.push(job.data.n);
        return job.data.n;
      },
      { connection: jobs.connection, prefix: jobPrefix },
    );
    try {
      await queue.add('index', { n: 'one' }, { jobId: 'j1' });
      await waitFor(() => done.length === 1, { what: 'the job to run on the cluster' });
      expect(done).to.deep.equal(['one']);
      await waitFor(async () => (await queue.getCompletedCount()) === 1, {
        what: 'the job to be recorded as completed',
      });
    } finally {
      await worker.close();
      await queue.close();
      await jobs.close();
    }
  });

  it("when topics have the default partition count, then every topic has partitions on every master and all of a partition's keys share its slot", async () => {
    const partitions = SETTINGS.TOPIC_PARTITIONS.default;
    const prefix = SETTINGS.STREAM_PREFIX.default;
    const slotOf = async (key: string): Promise<number> =>
      Number(await redis.call('CLUSTER', 'KEYSLOT', key));
    const masters = new Set(mastersOf(redis).map((n) => `${n.options.host}:${n.options.port}`));
    expect(masters.size).to.equal(3);
    for (const topic of TOPICS) {
      const keys = topicKeys(prefix, topic, partitions);
      const owners = new Set<string>();
      for (const [p, stream] of keys.partitions.entries()) {
        owners.add(await ownerOf(stream));
        const slot = await slotOf(stream);
        for (const key of [keys.lease(p), keys.failures(p), keys.dead(p), keys.seen(p, 'm')]) {
          expect(await slotOf(key), `${key} lies in its stream's slot`).to.equal(slot);
        }
      }
      expect([...owners].sort(), `masters holding ${topic}'s partitions`).to.deep.equal(
        [...masters].sort(),
      );
    }
  });

  it('when a consumer reads messages of many conversations, then it reads and acknowledges entries in partitions on every master', async () => {
    const partitions = SETTINGS.TOPIC_PARTITIONS.default;
    const prefix = uniquePrefix();
    const client = createRedis(cluster.url, {
      name: 'botwire-test',
      enableAutoPipelining: true,
      scripts: PRODUCER_SCRIPTS,
    });
    const schemas = new SchemaRegistry();
    const producer = new Producer({ redis: client, schemas, prefix, maxLen: 1000, partitions });
    const handled = new Set<string>();
    const consumer = new StreamConsumer<{ ordering_key: string }>({
      redis: client,
      producer,
      schemas,
      logger,
      topic: 'indexer',
      name: 'spread',
      prefix,
      partitions,
      leaseMs: 5000,
      handler: async (m) => void handled.add(m.ordering_key),
    });
    const keys = topicKeys(prefix, 'indexer', partitions);
    try {
      await consumer.start();
      const conversations = Array.from({ length: 40 }, (_, i) => `conversation-${i}`);
      for (const key of conversations) {
        await producer.publish('indexer', {
          collection_name: 'faq',
          files: ['a.pdf'],
          ordering_key: key,
        });
      }
      await waitFor(() => handled.size === conversations.length, {
        what: 'every conversation to be handled',
      });
      // Per master, the streams on it whose group read entries and has none pending: the
      // consumer read and acknowledged there.
      const acked = new Set<string>();
      for (const stream of keys.partitions) {
        if ((await client.xlen(stream)) === 0) continue;
        const [info] = (await client.xinfo('GROUPS', stream)) as unknown[][];
        const field = (name: string): unknown => info![info!.indexOf(name) + 1];
        if (field('pending') === 0 && field('last-delivered-id') !== '0-0') {
          acked.add(await ownerOf(stream));
        }
      }
      expect(acked.size, 'masters with acknowledged entries').to.equal(3);
    } finally {
      await consumer.close();
      await dropPrefix(client, prefix);
      client.disconnect();
    }
  });

  it('when a node is asked for a key it does not hold, then the MOVED answer is an outage to wait out', async () => {
    const key = `${prefix}:{m}`;
    const owner = await ownerOf(key);
    const index = cluster.nodes.findIndex((n) => `127.0.0.1:${n.port}` !== owner);
    const node = cluster.connectNode(index);
    try {
      const error = await node.get(key).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(String((error as Error | undefined)?.message)).to.match(/^MOVED /);
      expect(isUnavailable(error)).to.equal(true);
    } finally {
      node.disconnect();
    }
  });

  // Last in this suite: it moves a slot, which the tests above do not expect.
  it('when a slot moves, then commands of an auto-pipeline to its former master follow it, each run once, and later batches go to its new master', async () => {
    const pipelined = createRedis(cluster.url, {
      name: 'botwire-test',
      enableAutoPipelining: true,
    });
    try {
      // Two keys in different slots of one master: an auto-pipeline sends them in one batch.
      const moving = `${prefix}:{moving}`;
      const owner = await ownerOf(moving);
      let staying = '';
      for (let i = 0; !staying; i += 1) {
        const key = `${prefix}:{staying-${i}}`;
        if ((await ownerOf(key)) === owner) staying = key;
      }
      await Promise.all([pipelined.set(moving, 0), pipelined.set(staying, 0)]);
      const slot = Number(await redis.call('CLUSTER', 'KEYSLOT', moving));
      const masters = await liveMasters(cluster);
      const from = masters.find((m) => m.slots.includes(slot))!;
      const to = masters.find((m) => m.id !== from.id)!;
      await moveSlot(cluster, slot, from, to);
      for (let batch = 1; batch <= 3; batch += 1) {
        // A write of each slot, a read of each: in one batch, to the moved slot's former master.
        const answers = await Promise.allSettled([
          pipelined.incr(moving),
          pipelined.incr(staying),
          pipelined.get(moving),
          pipelined.get(staying),
        ]);
        expect(
          answers.map((a) => (a.status === 'fulfilled' ? String(a.value) : a.reason)),
        ).to.deep.equal([batch, batch, batch, batch].map(String));
      }
      expect((pipelined as Cluster).slots[slot]?.[0]).to.equal(
        `127.0.0.1:${cluster.nodes[to.index]!.port}`,
      );
    } finally {
      pipelined.disconnect();
    }
  });
});

forEachRedisMode('pipeline backlog gauge', (mode) => {
  let redis: Redis;
  let prefix: string;
  const partitions = 4;

  beforeEach(() => {
    redis = createRedis(mode.url(), { name: 'botwire-test' });
    prefix = uniquePrefix();
  });

  afterEach(async () => {
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });

  it('when messages wait in every pipeline topic, then the backlog counts each of them, and not the dead letters, which wait for no one', async () => {
    const topics = ['channel', 'language', 'flow'] as const;
    for (const topic of topics) {
      const keys = topicKeys(prefix, topic, partitions);
      await ensureGroups(redis, keys.partitions, topic);
    }
    const conversation = { app_id: 'a1', chat_id: 'c', conversation_id: 'v' };
    // Raw entries: the gauge counts entries, whatever they hold.
    for (const [n, topic] of topics.entries()) {
      for (let i = 0; i <= n; i += 1) {
        const keys = topicKeys(prefix, topic, partitions);
        await redis.xadd(
          keys.partitions[i % partitions]!,
          '*',
          'data',
          JSON.stringify({ conversation }),
        );
      }
    }
    await redis.xadd(topicKeys(prefix, 'flow', partitions).dead(1), '*', 'data', '{}');
    const depths = await topicDepths(redis, prefix, partitions, topics);
    expect(depths.map((d) => [d.topic, d.waiting, d.dead])).to.deep.equal([
      ['channel', 1, 0],
      ['language', 2, 0],
      ['flow', 3, 1],
    ]);
    const gauge = new BacklogGauge({ redis, prefix, partitions, max: 5, logger });
    await gauge.sample();
    expect(gauge.waiting).to.equal(6);
    expect(gauge.overloaded).to.equal(true);
  });

  it('when a sample fails, then the last figure stands rather than no backlog', async () => {
    const keys = topicKeys(prefix, 'flow', partitions);
    await ensureGroups(redis, keys.partitions, 'flow');
    for (let i = 0; i < 3; i += 1) await redis.xadd(keys.partitions[0]!, '*', 'data', '{}');
    const own = createRedis(mode.url(), { name: 'botwire-test', failFast: true });
    own.on('error', () => undefined);
    const gauge = new BacklogGauge({ redis: own, prefix, partitions, max: 2, logger });
    await waitFor(() => own.status === 'ready', { what: 'the connection to be ready' });
    await gauge.sample();
    expect(gauge.waiting).to.equal(3);
    own.disconnect();
    await waitFor(() => ['end', 'close'].includes(own.status), { what: 'the connection to close' });
    await gauge.sample();
    expect(gauge.waiting, 'the figure after a failed sample').to.equal(3);
    expect(gauge.overloaded).to.equal(true);
  });

  it('when no callback asks, then the gauge reads nothing while the backlog is within the limit; an ask starts sampling again, and over the limit it samples without asks', async () => {
    const keys = topicKeys(prefix, 'flow', partitions);
    await ensureGroups(redis, keys.partitions, 'flow');
    const interval = 50;
    const gauge = new BacklogGauge({
      redis,
      prefix,
      partitions,
      max: 2,
      logger,
      intervalMs: interval,
    });
    gauge.start();
    try {
      // Nobody asks: after its first sample it rests, so entries arriving meanwhile go unseen.
      await sleep(5 * interval);
      for (let i = 0; i < 3; i += 1) await redis.xadd(keys.partitions[0]!, '*', 'data', '{}');
      await sleep(10 * interval);
      expect(gauge.waiting, 'the figure after a rest with no callbacks').to.equal(0);
      // One ask (judged by the figure from before the rest) starts sampling again. `waiting` is
      // read without asking.
      expect(gauge.overloaded).to.equal(false);
      await waitFor(() => gauge.waiting === 3, { what: 'the gauge to see the backlog' });
      // Nobody asks again. Over the limit it samples on: the drained backlog is seen.
      await sleep(3 * interval);
      await redis.call('XGROUP', 'SETID', keys.partitions[0]!, 'flow', '$');
      await waitFor(() => gauge.waiting === 0, { what: 'a sample with nobody asking' });
    } finally {
      gauge.stop();
    }
  });
});

/** A shared auto-pipelined connection, as a component's, and a producer on a fresh prefix. */
function busOn(url: string, partitions: number) {
  const redis = createRedis(url, {
    name: 'botwire-test',
    enableAutoPipelining: true,
    scripts: PRODUCER_SCRIPTS,
  });
  const prefix = uniquePrefix();
  const schemas = new SchemaRegistry();
  const producer = new Producer({ redis, schemas, prefix, maxLen: 1000, partitions });
  return { redis, prefix, schemas, producer };
}

forEachRedisMode('a consumer blocked in XREADGROUP', (mode) => {
  it('when its read blocks on a node, then commands for that node on the shared auto-pipelined connection are answered at once and the message is handled', async () => {
    const { redis, prefix, schemas, producer } = busOn(mode.url(), 2);
    const handled: string[] = [];
    const consumer = new StreamConsumer<{ collection_name: string }>({
      redis,
      producer,
      schemas,
      logger,
      topic: 'indexer',
      name: 'blocked',
      prefix,
      partitions: 2,
      // Longer than any wait below: a command queued behind the read would time the test out.
      blockMs: 60_000,
      leaseMs: 30_000,
      handler: async (m) => void handled.push(m.collection_name),
    });
    const stream = topicKeys(prefix, 'indexer', 2).partitions[0]!;
    try {
      await consumer.start();
      await waitFor(
        async () => {
          for (const node of mastersOf(redis)) {
            if (/cmd=xreadgroup/.test(String(await node.client('LIST')))) return true;
          }
          return false;
        },
        { what: "the consumer's read to block" },
      );
      expect(await redis.xlen(stream)).to.equal(0);
      await producer.publish('indexer', { collection_name: 'faq', files: ['a.pdf'] });
      await waitFor(() => handled.length === 1, { what: 'the message to be handled' });
    } finally {
      await consumer.close();
      await dropPrefix(redis, prefix);
      redis.disconnect();
    }
  });
});

forEachRedisMode('reads of keys in many slots', (mode) => {
  let redis: Redis;
  let prefix: string;

  beforeEach(() => {
    redis = createRedis(mode.url(), { name: 'botwire-test', enableAutoPipelining: true });
    prefix = uniquePrefix();
  });

  afterEach(async () => {
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });

  it('when the member sets of every component are read together, then each lists its processes', async () => {
    const components = ['api', ...TOPICS];
    for (const [i, component] of components.entries()) {
      await redis.eval(HEARTBEAT_SCRIPT, 1, membersKey(prefix, component), `p${i}`, 60_000);
    }
    const { nowMs, members } = await readMembers(
      redis,
      components.map((c) => membersKey(prefix, c)),
    );
    expect(nowMs).to.be.greaterThan(0);
    expect(components.map((c) => [c, members.get(membersKey(prefix, c))?.[0]?.name])).to.deep.equal(
      components.map((c, i) => [c, `p${i}`]),
    );
  });

  it("when an account's sessions are listed, then every live one is read, whatever slot it lies in", async () => {
    const store = new SessionStore({ redis, prefix, ttlS: 600 });
    const made = [];
    for (let i = 0; i < 6; i += 1) {
      made.push(
        await store.create({ actor: 'a1', accountId: 'a1', address: '127.0.0.1', userAgent: 't' }),
      );
    }
    const listed = await store.list('a1');
    expect(listed.map((s) => s.id).sort()).to.deep.equal(made.map((m) => m.session.id).sort());
  });
});

forEachRedisMode('a consumer reading several partitions', (mode) => {
  it("when a message arrives in one partition while the reads of all are blocked, then it is handled at once, not after another partition's BLOCK", async function () {
    this.timeout(60_000);
    const partitions = 8;
    const blockMs = 5000;
    const { redis, prefix, schemas, producer } = busOn(mode.url(), partitions);
    const handledAt = new Map<string, number>();
    const consumer = new StreamConsumer<{ ordering_key: string }>({
      redis,
      producer,
      schemas,
      logger,
      topic: 'indexer',
      name: 'prompt',
      prefix,
      partitions,
      blockMs,
      leaseMs: 30_000,
      handler: async (m) => void handledAt.set(m.ordering_key, Date.now()),
    });
    // One blocked read over every partition on one server; one per partition on a cluster.
    const blockedReads = async (): Promise<number> => {
      let n = 0;
      for (const node of mastersOf(redis)) {
        for (const line of String(await node.client('LIST')).split('\n')) {
          // `b`: blocked in a command now (`cmd` names the last command, blocked or not).
          if (
            / name=prompt:blocking\S* /.test(line) &&
            / flags=\S*b\S* .*cmd=xreadgroup/.test(line)
          ) {
            n += 1;
          }
        }
      }
      return n;
    };
    const expected = isCluster(redis) ? partitions : 1;
    try {
      await consumer.start();
      await waitFor(() => consumer.partitions.length === partitions, {
        what: 'the consumer to own every partition',
      });
      // A few partitions, each reached once every read is blocked again.
      for (const target of [0, 3, 6]) {
        const key = keyInPartition(target, partitions, 'conversation');
        await waitFor(async () => (await blockedReads()) === expected, {
          what: `${expected} blocked reads`,
        });
        const sent = Date.now();
        await producer.publish('indexer', {
          collection_name: 'faq',
          files: ['a.pdf'],
          ordering_key: key,
        });
        await waitFor(() => handledAt.has(key), {
          what: `the message to partition ${target} to be handled`,
          timeoutMs: blockMs * 2,
        });
        expect(handledAt.get(key)! - sent, `ms to handle in partition ${target}`).to.be.below(
          blockMs / 2,
        );
      }
    } finally {
      await consumer.close();
      await dropPrefix(redis, prefix);
      redis.disconnect();
    }
  });
});

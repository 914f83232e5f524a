/**
 * A Redis Cluster master killed, failed over, resharded or frozen under running consumers: every
 * message is handled without a dead letter (the cluster's moving is waited out, never counted
 * against the messages), and a frozen master holds up no partition of the other masters.
 */
import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { listDeadLetters } from '../src/shared/bus/dead-letters.ts';
import { LeaseWrites } from '../src/shared/bus/lease-writes.ts';
import type { BotwireError } from '../src/shared/errors.ts';
import { duplicateRedis, type Cluster } from '../src/shared/redis.ts';
import { busFixture, keyInPartition, type BusFixture } from './support/bus.ts';
import {
  liveMasters,
  offsetRole,
  waitForNewMaster,
  waitForReplica,
  startPrivateCluster,
  type PrivateCluster,
} from './support/private-cluster.ts';
import { waitFor } from './support/services.ts';

interface IndexerMessage {
  collection_name: string;
  files: string[];
  ordering_key?: string;
}

describe('Redis Cluster failover and resharding under a consumer', function () {
  this.timeout(120_000);
  let cluster: PrivateCluster;
  let bus: BusFixture<IndexerMessage>;

  before(async function () {
    this.timeout(120_000);
    cluster = await startPrivateCluster();
  });

  afterEach(async () => bus?.close());

  after(async () => cluster?.close());

  it('when the master holding the topic is SIGKILLed mid-work, then its replica takes over and every message is handled, none dead-lettered', async () => {
    bus = busFixture<IndexerMessage>({ topic: 'indexer', partitions: 4, redisUrl: cluster.url });
    const { redis, producer, keys, prefix } = bus;
    const handled = new Set<string>();
    await bus
      .consumer({
        // Few deliveries: a failover counted against the messages would dead-letter them.
        maxDeliveries: 2,
        concurrency: 1,
        leaseMs: 2000,
        handler: async (m) => {
          await sleep(40);
          // A write of the handler's own, which fails while the slot has no master.
          await redis.sadd(`${prefix}:{indexer}:handled`, m.collection_name);
          handled.add(m.collection_name);
        },
      })
      .start();
    const names = Array.from({ length: 40 }, (_, i) => `n${i}`);
    await producer.publishMany(
      names.map((n) => ({ topic: 'indexer', message: { collection_name: n, files: ['a.pdf'] } })),
    );
    // The kill must not lose published entries: wait until the replica has every write.
    const owner = (redis as Cluster).slots[
      Number(await redis.call('CLUSTER', 'KEYSLOT', keys.partitions[0]!))
    ]![0]!;
    const masterIndex = cluster.nodes.findIndex((n) => `127.0.0.1:${n.port}` === owner);
    expect(masterIndex, 'the master of the topic').to.be.within(0, 2);
    const replicaIndex = masterIndex + 3;
    const offsetOf = async (i: number, field: string): Promise<number> => {
      const node = cluster.connectNode(i);
      try {
        const info = String(await node.call('INFO', 'replication'));
        return Number(new RegExp(`${field}:(\\d+)`).exec(info)?.[1] ?? -1);
      } finally {
        node.disconnect();
      }
    };
    await waitFor(() => handled.size >= 5, { timeoutMs: 30_000, what: 'some messages handled' });
    await waitFor(
      async () =>
        (await offsetOf(replicaIndex, 'slave_repl_offset')) >=
        (await offsetOf(masterIndex, 'master_repl_offset')),
      { what: 'the replica to catch up' },
    );
    await cluster.nodes[masterIndex]!.stop('SIGKILL');
    await waitFor(async () => /role:master/.test(String(await offsetRole(cluster, replicaIndex))), {
      timeoutMs: 60_000,
      what: 'the replica to be promoted',
    });
    await waitFor(() => names.every((n) => handled.has(n)), {
      timeoutMs: 60_000,
      what: 'every message handled after the failover',
    });
    await waitFor(async () => (await bus.pending()) === 0, {
      timeoutMs: 30_000,
      what: 'nothing pending',
    });
    expect(await listDeadLetters(redis, prefix, 'indexer', 4)).to.have.length(0);
    expect(
      (await redis.smembers(`${prefix}:{indexer}:handled`)).sort(),
      'every message recorded on the promoted replica',
    ).to.deep.equal([...names].sort());
    // Back as a replica of the promoted one, for the next test.
    await cluster.nodes[masterIndex]!.start();
  });

  it("when the replica of the topic's master takes over by CLUSTER FAILOVER while messages are published, then every message is published once and handled, none dead-lettered", async () => {
    bus = busFixture<IndexerMessage>({ topic: 'indexer', partitions: 4, redisUrl: cluster.url });
    const { redis, producer, keys, prefix } = bus;
    const handled = new Map<string, number>();
    await bus
      .consumer({
        maxDeliveries: 2,
        leaseMs: 2000,
        handler: async (m) => {
          await redis.sadd(`${prefix}:{indexer}:handled`, m.collection_name);
          handled.set(m.collection_name, (handled.get(m.collection_name) ?? 0) + 1);
        },
      })
      .start();
    const slot = Number(await redis.call('CLUSTER', 'KEYSLOT', keys.partitions[0]!));
    const owner = (redis as Cluster).slots[slot]![0]!;
    const masterIndex = cluster.nodes.findIndex((n) => `127.0.0.1:${n.port}` === owner);
    // After the first test's kill the masters may have moved: find this master's replica.
    const replicaIndex = await waitForReplica(cluster, cluster.nodes[masterIndex]!.id);
    await waitFor(
      async () => /master_link_status:up/.test(await offsetRole(cluster, replicaIndex)),
      { timeoutMs: 60_000, what: 'the replica to be in sync' },
    );
    const names = Array.from({ length: 60 }, (_, i) => `f${i}`);
    const published = new Set<string>();
    // As the edge does: each message once by its id, retried while Redis is away (the platform
    // delivering it again).
    const publishAll = async () => {
      for (const name of names) {
        for (;;) {
          try {
            const [id] = await producer.publishOnce(
              'indexer',
              [{ id: name, message: { collection_name: name, files: ['a.pdf'] } }],
              600,
            );
            if (id) published.add(name);
            break;
          } catch {
            await sleep(50);
          }
        }
        await sleep(10);
      }
    };
    const publishing = publishAll();
    await waitFor(() => published.size >= 15, { timeoutMs: 30_000, what: 'some published' });
    const replica = cluster.connectNode(replicaIndex);
    try {
      await replica.call('CLUSTER', 'FAILOVER');
    } finally {
      replica.disconnect();
    }
    await waitFor(async () => /role:master/.test(await offsetRole(cluster, replicaIndex)), {
      timeoutMs: 60_000,
      what: 'the replica to take over',
    });
    await publishing;
    expect(published.size, 'each message published once').to.equal(names.length);
    await waitFor(() => names.every((n) => handled.has(n)), {
      timeoutMs: 60_000,
      what: 'every message handled',
    });
    await waitFor(async () => (await bus.pending()) === 0, {
      timeoutMs: 30_000,
      what: 'nothing pending',
    });
    expect(await listDeadLetters(redis, prefix, 'indexer', 4)).to.have.length(0);
    expect(
      (await redis.xlen(keys.partitions[0]!)) +
        (await redis.xlen(keys.partitions[1]!)) +
        (await redis.xlen(keys.partitions[2]!)) +
        (await redis.xlen(keys.partitions[3]!)),
      'entries in the topic',
    ).to.equal(names.length);
  });

  it("when the topic's slot is resharded to another master while messages are published and handled, then every message is published once and handled, none dead-lettered", async () => {
    bus = busFixture<IndexerMessage>({ topic: 'indexer', partitions: 4, redisUrl: cluster.url });
    const { redis, producer, keys, prefix } = bus;
    const handled = new Set<string>();
    await bus
      .consumer({
        maxDeliveries: 2,
        leaseMs: 2000,
        handler: async (m) => {
          await redis.sadd(`${prefix}:{indexer}:handled`, m.collection_name);
          handled.add(m.collection_name);
        },
      })
      .start();
    const slot = Number(await redis.call('CLUSTER', 'KEYSLOT', keys.partitions[0]!));
    // After the failovers above, a node's view may still call a demoted master a master (gossip
    // lags): take the view once every master in it says so itself (SETSLOT refuses replicas).
    let masters: Awaited<ReturnType<typeof liveMasters>> = [];
    await waitFor(
      async () => {
        masters = await liveMasters(cluster);
        const roles = await Promise.all(masters.map((m) => offsetRole(cluster, m.index)));
        return masters.length === 3 && roles.every((info) => /role:master/.test(info));
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'a settled view of the masters' },
    );
    const from = masters.find((m) => m.slots.includes(slot))!;
    const to = masters.find((m) => m !== from)!;
    const names = Array.from({ length: 60 }, (_, i) => `r${i}`);
    const published = new Set<string>();
    const publishing = (async () => {
      for (const name of names) {
        for (;;) {
          try {
            const [id] = await producer.publishOnce(
              'indexer',
              [{ id: name, message: { collection_name: name, files: ['a.pdf'] } }],
              600,
            );
            if (id) published.add(name);
            break;
          } catch {
            await sleep(50);
          }
        }
        await sleep(20);
      }
    })();
    await waitFor(() => published.size >= 10, { timeoutMs: 30_000, what: 'some published' });
    // A reshard as redis-cli does it, two keys at a time, slowly: traffic meets the slot split
    // between the two masters (ASK and TRYAGAIN answers).
    const source = cluster.connectNode(from.index);
    const target = cluster.connectNode(to.index);
    try {
      await target.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', from.id);
      await source.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', to.id);
      for (;;) {
        const batch = (await source.call('CLUSTER', 'GETKEYSINSLOT', slot, 2)) as string[];
        if (batch.length === 0) break;
        await source.call(
          'MIGRATE',
          '127.0.0.1',
          cluster.nodes[to.index]!.port,
          '',
          0,
          5000,
          'KEYS',
          ...batch,
        );
        await sleep(50);
      }
      for (const master of masters) {
        const node = cluster.connectNode(master.index);
        try {
          await node.call('CLUSTER', 'SETSLOT', slot, 'NODE', to.id);
        } finally {
          node.disconnect();
        }
      }
    } finally {
      source.disconnect();
      target.disconnect();
    }
    await publishing;
    expect(published.size, 'each message published once').to.equal(names.length);
    await waitFor(() => names.every((n) => handled.has(n)), {
      timeoutMs: 60_000,
      what: 'every message handled',
    });
    await waitFor(async () => (await bus.pending()) === 0, {
      timeoutMs: 30_000,
      what: 'nothing pending',
    });
    expect(await listDeadLetters(redis, prefix, 'indexer', 4)).to.have.length(0);
    let entries = 0;
    for (const stream of keys.partitions) entries += await redis.xlen(stream);
    expect(entries, 'entries in the topic').to.equal(names.length);
    expect(
      (await liveMasters(cluster)).find((m) => m.slots.includes(slot))?.id,
      'the slot now on the other master',
    ).to.equal(to.id);
  });

  it('when a master stops answering (frozen) under two consumers that hold leases to a replica, then no partition has two readers, and the messages of the partitions on the other masters are each handled once, in order, throughout', async () => {
    bus = busFixture<IndexerMessage>({ topic: 'indexer', partitions: 8, redisUrl: cluster.url });
    const { redis, producer, keys } = bus;
    const leaseMs = 2000;
    const handled = new Map<string, number>();
    const order = new Map<string, string[]>();
    const active = new Map<string, number>();
    let overlaps = 0;
    const handler = async (m: IndexerMessage): Promise<void> => {
      const key = m.ordering_key!;
      if ((active.get(key) ?? 0) > 0) overlaps += 1;
      active.set(key, (active.get(key) ?? 0) + 1);
      await sleep(20);
      handled.set(m.collection_name, (handled.get(m.collection_name) ?? 0) + 1);
      order.set(key, [...(order.get(key) ?? []), m.collection_name]);
      active.set(key, active.get(key)! - 1);
    };
    // As docs/operations.md asks of a cluster whose masters have replicas: the frozen master
    // resumes after its failover, and a lease it hands out as it wakes must not count.
    const fenced = { leaseMs, leaseReplicas: 1, blockMs: 200, handler };
    const a = bus.consumer({ name: 'a', ...fenced });
    const b = bus.consumer({ name: 'b', ...fenced });
    await a.start();
    await b.start();
    await waitFor(() => a.partitions.length === 4 && b.partitions.length === 4, {
      what: 'an even split',
    });
    const ownerOf = async (key: string): Promise<string> =>
      (redis as Cluster).slots[Number(await redis.call('CLUSTER', 'KEYSLOT', key))]![0]!;
    const owners = await Promise.all(keys.partitions.map(ownerOf));
    // Frozen: a master serving a partition of a, not the member set (whose heartbeats would stop
    // for every process alike); a keeps a partition on another master.
    const membersOwner = await ownerOf(keys.members);
    const frozen = owners.find((o, p) => o !== membersOwner && a.partitions.includes(p))!;
    expect(frozen, 'a master to freeze').to.be.a('string');
    const healthy = keys.partitions.map((_, p) => p).filter((p) => owners[p] !== frozen);
    expect(a.partitions.filter((p) => healthy.includes(p))).to.not.be.empty;
    // One ordering key per partition on the other masters.
    const keyOf = new Map(healthy.map((p) => [p, keyInPartition(p, 8, 'chat')]));
    const sent = new Map<string, string[]>();
    let publishing = true;
    const traffic = (async () => {
      for (let n = 0; publishing; n += 1) {
        for (const key of keyOf.values()) {
          const name = `${key}.${n}`;
          await producer.publish('indexer', {
            collection_name: name,
            files: ['a.pdf'],
            ordering_key: key,
          });
          sent.set(key, [...(sent.get(key) ?? []), name]);
        }
        await sleep(30);
      }
    })();
    let shared = 0;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        if (a.partitions.some((p) => b.partitions.includes(p))) shared += 1;
        await sleep(50);
      }
    })();
    const node = cluster.nodes.findIndex((n) => `127.0.0.1:${n.port}` === frozen);
    try {
      await sleep(1000);
      cluster.nodes[node]!.pause();
      // Past the failover (cluster-node-timeout 2 s) and past the frozen partitions' leases.
      await sleep(3 * leaseMs);
    } finally {
      cluster.nodes[node]!.resume();
    }
    await sleep(2000);
    publishing = false;
    await traffic;
    const total = [...sent.values()].flat().length;
    await waitFor(() => handled.size === total, {
      timeoutMs: 60_000,
      what: `every message handled (${handled.size} of ${total})`,
    });
    watching = false;
    await watch;
    expect(shared, 'samples where a partition had two readers').to.equal(0);
    expect(overlaps, 'messages of a key handled at once').to.equal(0);
    expect(
      [...handled.values()].filter((n) => n !== 1),
      'handled more than once',
    ).to.deep.equal([]);
    for (const [key, names] of sent) expect(order.get(key), key).to.deep.equal(names);
  });

  it('when a master frozen past its failover resumes, then the leases it hands out as it wakes do not count where a replica must acknowledge them', async () => {
    bus = busFixture<IndexerMessage>({ topic: 'indexer', partitions: 8, redisUrl: cluster.url });
    const { redis, keys } = bus;
    const slotOf = async (key: string): Promise<number> =>
      Number(await redis.call('CLUSTER', 'KEYSLOT', key));
    const masters = await liveMasters(cluster);
    const masterOf = async (key: string) => {
      const slot = await slotOf(key);
      return masters.find((m) => m.slots.includes(slot))!;
    };
    // Two partitions whose leases lie on one master: one taken with the fence, one without.
    const leaseKeys = keys.partitions.map((_, p) => keys.lease(p));
    const owners = await Promise.all(leaseKeys.map(masterOf));
    const frozen = owners.find((o) => owners.filter((x) => x.index === o.index).length >= 2)!;
    const [fencedKey, bareKey] = leaseKeys.filter((_, p) => owners[p]!.index === frozen.index);
    // A connection whose slot map names the master about to freeze; its commands wait for it.
    const stale = duplicateRedis(redis, { enableAutoPipelining: false, commandTimeout: 20_000 });
    await stale.get(fencedKey!);
    const writes = (holder: string, replicas: number): LeaseWrites =>
      new LeaseWrites({ redis: stale, holder, leaseMs: 2000, replicas, waitMs: 100 });
    // Asked before the freeze: a keyless command may go to any node, the frozen one too.
    const fencedSlot = await slotOf(fencedKey!);
    const node = cluster.nodes[frozen.index]!;
    let promoted = -1;
    try {
      node.pause();
      let fenced: Promise<boolean | Error>;
      let bare: Promise<boolean | Error>;
      try {
        promoted = await waitForNewMaster(cluster, frozen.index, fencedSlot);
        // Another process holds both leases on the promoted master.
        const onPromoted = cluster.connectNode(promoted);
        try {
          await onPromoted.set(fencedKey!, 'a', 'PX', 60_000);
          await onPromoted.set(bareKey!, 'a', 'PX', 60_000);
        } finally {
          onPromoted.disconnect();
        }
        // Queued back to back on one socket of the frozen master, so it runs both from one read
        // as it wakes: both as the master, or both redirected.
        const settled = (taken: Promise<boolean>) => taken.catch((e: Error) => e);
        bare = settled(writes('c', 0).acquire(bareKey!));
        fenced = settled(writes('b', 1).acquire(fencedKey!));
        await sleep(300);
      } finally {
        node.resume();
      }
      // The hazard the fence is for: without it, the woken master's stale copy (the lease free on
      // it) answered as if it were still the master, while the promoted master says 'a' holds it.
      expect(await bare, 'a lease taken without a replica to acknowledge it').to.equal(true);
      // The same answer from the same node, with the fence: its WAIT found no replica (gave up,
      // or was unblocked as the node turned replica), so the lease does not count.
      const answer = await fenced;
      expect(answer, 'the fenced lease').to.be.instanceOf(Error);
      expect(
        (answer as BotwireError).code === 'BW_ERR_NO_REPLICA' ||
          /^UNBLOCKED/.test((answer as Error).message),
        `refused for want of a replica: ${(answer as Error).message}`,
      ).to.equal(true);
      expect(await redis.get(fencedKey!), 'the holder on the promoted master').to.equal('a');
    } finally {
      stale.disconnect();
    }
    // The woken master rejoins as the promoted one's replica, for the tests after this one.
    await waitForReplica(cluster, cluster.nodes[promoted]!.id);
  });
});

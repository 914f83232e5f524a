/**
 * A Redis write held to the replicas that must have it before it counts: the write and a
 * `WAIT <replicas> <timeoutMs>` go in one pipeline, so on the node and connection that took the
 * write (a `WAIT` speaks of the writes its own connection sent before it).
 *
 * Two writes use it: the edge's publish of an accepted callback (a master lost before replicating
 * would take it with it, docs/operations.md, "Replication is asynchronous"), and a consumer's
 * partition lease (a master frozen past its failover answers, as it resumes, the commands queued
 * while it was frozen as if it were still the master: only its replicas, gone to the promoted
 * one, tell, docs/topics.md, "Who reads which partition").
 */
import type { ChainableCommander } from 'ioredis';
import { isCluster, mastersOf, type Redis } from './redis.ts';

/** How many replicas must hold a write before it counts, and how long to wait for them. */
export interface ReplicaWait {
  replicas: number;
  timeoutMs: number;
  /**
   * The connection the write and its `WAIT` go on: one of their own. `WAIT` blocks the
   * connection it is sent on until the replicas answer or the timeout passes, so on a shared
   * connection every other command for that node (other bots' keys, other partitions) would
   * queue behind it while a master has no replica. Without it, the writer's own connection.
   */
  redis?: Redis;
}

/**
 * Queues one write on a pipeline of `connection`, follows it with the `WAIT`, and answers the
 * write's answer and how many replicas acknowledged it. A redirected pipeline is not followed by
 * the cluster connection (src/shared/redis-redirects.ts leaves pipelines with a `WAIT` to their
 * caller): after a `MOVED` the slot map is read again and the pair is sent again (three sends in
 * all), so the write must be one that may run twice (a publish with its dedupe markers, a lease
 * taken or renewed for the same holder). An `ASK` (the slot mid-migration) is an outage to wait
 * out; the `WAIT` failing (a node turned replica unblocks it) is thrown. Whatever fails, a
 * cluster's slot map is read again.
 */
export async function writeAcknowledged(
  connection: Redis,
  queue: (pipeline: ChainableCommander) => unknown,
  wait: Pick<ReplicaWait, 'replicas' | 'timeoutMs'>,
): Promise<{ answer: unknown; acknowledged: number }> {
  try {
    return await sendWithWait(connection, queue, wait);
  } catch (error) {
    // A pipeline to a master that died is not redirected, and on a connection of the writer's own
    // nothing else would read the slot map again: read it now, so the next write finds the
    // promoted master.
    if (isCluster(connection)) connection.refreshSlotsCache();
    throw error;
  }
}

/** `writeAcknowledged`'s pipeline, sent again after a `MOVED`. */
async function sendWithWait(
  connection: Redis,
  queue: (pipeline: ChainableCommander) => unknown,
  wait: Pick<ReplicaWait, 'replicas' | 'timeoutMs'>,
): Promise<{ answer: unknown; acknowledged: number }> {
  for (let attempt = 1; ; attempt += 1) {
    const pipeline = connection.pipeline();
    queue(pipeline);
    pipeline.call('WAIT', wait.replicas, wait.timeoutMs);
    const [ran, waited] = (await pipeline.exec()) ?? [];
    if (!ran || !waited) throw new Error('no answer to the pipeline');
    if (ran[0] && /^MOVED /.test(ran[0].message) && attempt < 3 && isCluster(connection)) {
      await new Promise<void>((resolve) => connection.refreshSlotsCache(() => resolve()));
      continue;
    }
    if (ran[0]) throw ran[0];
    if (waited[0]) throw waited[0];
    return { answer: ran[1], acknowledged: Number(waited[1]) };
  }
}

/**
 * The masters (`host:port`) with fewer than `replicas` replicas connected, as each answers now
 * (`INFO replication`): where every write held to that many would be refused.
 */
export async function mastersShortOfReplicas(redis: Redis, replicas: number): Promise<string[]> {
  if (isCluster(redis) && redis.status !== 'ready') await redis.ping();
  const short: string[] = [];
  for (const node of mastersOf(redis)) {
    const info = String(await node.info('replication'));
    const connected = Number(/connected_slaves:(\d+)/.exec(info)?.[1] ?? 0);
    if (connected < replicas) short.push(`${node.options.host}:${node.options.port}`);
  }
  return short;
}

/**
 * What is left of the former stream key layout (one hash tag per topic, `LEGACY_LAYOUT` in
 * topics.ts) on a Redis: how much of each legacy partition its group has not read or not
 * acknowledged, and how many legacy dead letters wait. The components refuse to start while any
 * is left (`checkLegacyLayout`), and `scripts/migrate-stream-layout.sh` drains and retires it
 * (docs/operations.md, "Stream key layout").
 */
import { BotwireError } from '../errors.ts';
import { isCluster, type Redis } from '../redis.ts';
import { groupOf, LEGACY_LAYOUT, TOPICS, type Topic } from './topics.ts';

/** One legacy partition stream as its topic's group sees it. */
export interface LegacyPartition {
  topic: Topic;
  partition: number;
  stream: string;
  /** Entries in the stream. */
  length: number;
  /** Entries the group has not read yet (all of them when the stream has no group). */
  lag: number;
  /** Entries read but not acknowledged. */
  pending: number;
  /** The group's last delivered id ('' without a group): two equal reads saw no new entry. */
  lastDelivered: string;
}

export interface LegacyState {
  partitions: LegacyPartition[];
  /** Legacy dead letters by topic. */
  dead: Map<Topic, number>;
}

/** Which legacy partitions to read: by topic, the partition numbers. */
export type LegacyStreams = ReadonlyMap<Topic, readonly number[]>;

/** Partitions 0..n-1 of every topic: the streams a legacy install with `partitions` had. */
export function configuredStreams(partitions: number): LegacyStreams {
  const numbers = Array.from({ length: partitions }, (_, p) => p);
  return new Map(TOPICS.map((topic) => [topic, numbers]));
}

/** A flat `XINFO GROUPS` entry as a record. */
function fieldsOf(raw: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(raw)) return out;
  for (let i = 0; i + 1 < raw.length; i += 2) out[String(raw[i])] = raw[i + 1];
  return out;
}

function check<T>(result: [Error | null, unknown] | undefined): T | undefined {
  if (!result) return undefined;
  const [error, value] = result;
  if (error) throw error;
  return value as T;
}

/**
 * Reads the legacy partitions named (one pipeline: XLEN and XINFO GROUPS of each stream, XLEN of
 * each topic's dead-letter stream). A group's `lag` is unknown to Redis after entries were
 * deleted out of order; then one XRANGE past its last delivered id tells whether any is unread.
 */
export async function readLegacyState(
  redis: Redis,
  prefix: string,
  streams: LegacyStreams,
): Promise<LegacyState> {
  const pipeline = redis.pipeline();
  const order: { topic: Topic; partition: number; stream: string }[] = [];
  for (const [topic, numbers] of streams) {
    for (const partition of numbers) {
      const stream = LEGACY_LAYOUT.partition(prefix, topic, partition);
      order.push({ topic, partition, stream });
      pipeline.xlen(stream);
      // Fails with "no such key" on a missing stream: read only when XLEN said it exists.
      pipeline.call('XINFO', 'GROUPS', stream);
    }
  }
  const topics = [...streams.keys()];
  for (const topic of topics) pipeline.xlen(LEGACY_LAYOUT.dead(prefix, topic));
  const results = (await pipeline.exec()) ?? [];

  const partitions: LegacyPartition[] = [];
  const unknownLag: LegacyPartition[] = [];
  order.forEach(({ topic, partition, stream }, i) => {
    const length = check<number>(results[2 * i]) ?? 0;
    const [groupsError, groups] = results[2 * i + 1] ?? [null, []];
    const exists = length > 0 || !groupsError;
    if (!exists) return;
    const group = (Array.isArray(groups) ? groups : [])
      .map(fieldsOf)
      .find((g) => g.name === groupOf(topic));
    if (!group) {
      // Nobody of the component ever read it: every entry is work not done.
      if (length > 0)
        partitions.push({
          topic,
          partition,
          stream,
          length,
          lag: length,
          pending: 0,
          lastDelivered: '',
        });
      return;
    }
    const entry: LegacyPartition = {
      topic,
      partition,
      stream,
      length,
      lag: typeof group.lag === 'number' ? group.lag : 0,
      pending: Number(group.pending ?? 0),
      lastDelivered:
        typeof group['last-delivered-id'] === 'string' ? group['last-delivered-id'] : '',
    };
    if (typeof group.lag !== 'number') unknownLag.push(entry);
    partitions.push(entry);
  });
  for (const entry of unknownLag) {
    const after = await redis.xrange(entry.stream, `(${entry.lastDelivered}`, '+', 'COUNT', 1);
    entry.lag = after.length;
  }
  const dead = new Map<Topic, number>();
  topics.forEach((topic, i) => {
    const count = check<number>(results[2 * order.length + i]) ?? 0;
    if (count > 0) dead.set(topic, count);
  });
  return { partitions, dead };
}

/** The partitions with work left: entries unread or unacknowledged by their group. */
export function undrained(state: LegacyState): LegacyPartition[] {
  return state.partitions.filter((p) => p.lag > 0 || p.pending > 0);
}

/**
 * Refuses to start a component on a single Redis that still holds work in the former layout
 * (entries its group has not read or acknowledged, or dead letters): the new code would never
 * read them. A fresh install, or one migrated, has no legacy keys and starts as before. Cheap:
 * one pipeline, once at start, over the configured partitions.
 *
 * Skipped on a Redis Cluster: botwire did not support clusters before this layout, so no
 * supported install can hold the former one there (and its per-topic keys would be read from the
 * nodes of many slots).
 */
export async function checkLegacyLayout(
  redis: Redis,
  prefix: string,
  partitions: number,
): Promise<void> {
  if (isCluster(redis)) return;
  const state = await readLegacyState(redis, prefix, configuredStreams(partitions));
  const left = undrained(state);
  if (left.length === 0 && state.dead.size === 0) return;
  const work = [...new Set(left.map((p) => p.topic))].map((topic) => {
    const of = left.filter((p) => p.topic === topic);
    const sum = (key: 'lag' | 'pending'): number => of.reduce((n, p) => n + p[key], 0);
    return `${topic}: ${sum('lag')} unread, ${sum('pending')} pending`;
  });
  const dead = [...state.dead].map(([topic, n]) => `${topic}: ${n} dead letters`);
  throw new BotwireError(
    'BW_ERR_LAYOUT',
    `Redis still holds work in the former stream key layout (${[...work, ...dead].join('; ')}); ` +
      'drain and switch it with ./scripts/migrate-stream-layout.sh (docs/operations.md, "Stream key layout")',
    {
      details: {
        partitions: left.length,
        deadLetters: [...state.dead.values()].reduce((a, b) => a + b, 0),
      },
    },
  );
}

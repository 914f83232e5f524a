/**
 * What is left of the former stream key layout (one hash tag per topic, `LEGACY_LAYOUT` in
 * topics.ts) on a Redis: how much of each legacy partition its group has not read or not
 * acknowledged, and how many legacy dead letters wait. The components refuse to start while any
 * is left (`checkLegacyLayout`), and `scripts/migrate-stream-layout.sh` drains and retires it
 * (docs/operations.md, "Stream key layout").
 */
import { BotwireError } from '../errors.ts';
import type { Redis } from '../redis.ts';
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
 * Reads the legacy partitions named: per topic one pipeline (XLEN and XINFO GROUPS of each of its
 * streams, XLEN of its dead-letter stream), the topics at once. A topic's former keys share its
 * hash tag, so each pipeline stays in one slot of a Redis Cluster. A group's `lag` is unknown to
 * Redis after entries were deleted out of order; then one XRANGE past its last delivered id tells
 * whether any is unread.
 */
export async function readLegacyState(
  redis: Redis,
  prefix: string,
  streams: LegacyStreams,
): Promise<LegacyState> {
  const topics = await Promise.all(
    [...streams].map(([topic, numbers]) => readLegacyTopic(redis, prefix, topic, numbers)),
  );
  const dead = new Map<Topic, number>();
  for (const t of topics) if (t.dead > 0) dead.set(t.topic, t.dead);
  return { partitions: topics.flatMap((t) => t.partitions), dead };
}

async function readLegacyTopic(
  redis: Redis,
  prefix: string,
  topic: Topic,
  numbers: readonly number[],
): Promise<{ topic: Topic; partitions: LegacyPartition[]; dead: number }> {
  const pipeline = redis.pipeline();
  const order = numbers.map((partition) => {
    const stream = LEGACY_LAYOUT.partition(prefix, topic, partition);
    pipeline.xlen(stream);
    // Fails with "no such key" on a missing stream: read only when XLEN said it exists.
    pipeline.call('XINFO', 'GROUPS', stream);
    return { partition, stream };
  });
  pipeline.xlen(LEGACY_LAYOUT.dead(prefix, topic));
  const results = (await pipeline.exec()) ?? [];

  const partitions: LegacyPartition[] = [];
  const unknownLag: LegacyPartition[] = [];
  order.forEach(({ partition, stream }, i) => {
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
  return { topic, partitions, dead: check<number>(results[2 * order.length]) ?? 0 };
}

/** The partitions with work left: entries unread or unacknowledged by their group. */
export function undrained(state: LegacyState): LegacyPartition[] {
  return state.partitions.filter((p) => p.lag > 0 || p.pending > 0);
}

/**
 * Refuses to start a component on a Redis (one server or a cluster) that still holds work in the
 * former layout (entries its group has not read or acknowledged, or dead letters): the new code
 * would never read them. A fresh install, or one migrated, has no legacy keys and starts as
 * before. Cheap: one pipeline per topic, once at start, over the configured partitions.
 */
export async function checkLegacyLayout(
  redis: Redis,
  prefix: string,
  partitions: number,
): Promise<void> {
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

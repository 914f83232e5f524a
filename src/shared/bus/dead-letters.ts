/**
 * Reading and replaying a topic's dead letters. Each partition keeps its own dead-letter stream
 * (`<prefix>:{<topic>:p<n>}:dead`, in the partition's slot, so dead-lettering stays one MULTI on
 * a Redis Cluster). Each dead letter keeps the original `data`, the entry id it had, the error
 * code and the reason. The topic scripts (`./scripts/dead-letters.sh`) and the admin routes
 * (`/v2/ops/dead-letters`) both go through these functions.
 *
 * A dead letter's id names its partition and its entry in that partition's dead-letter stream:
 * `p<n>-<ms>-<seq>` (`p3-1732500000000-0`). Lists are oldest first across partitions: by stream
 * id, ties by partition.
 */
import { BotwireError, type ErrorCode } from '../errors.ts';
import type { Redis } from '../redis.ts';
import { compareIds, MAX_ID, parseStreamId } from '../stream-ids.ts';
import type { Producer } from './producer.ts';
import { orderingKeyOf, partitionOf, topicKeys, type Topic } from './topics.ts';

export interface DeadLetter {
  /** `p<n>-<ms>-<seq>`: the partition and the entry in its dead-letter stream; pass it to `replayDeadLetters`. */
  id: string;
  /** The partition whose dead-letter stream holds it. */
  partition: number;
  topic: string;
  /** The partition stream the message was read from. */
  stream: string;
  sourceId: string;
  group: string;
  consumer: string;
  code: string;
  reason: string;
  deliveries: number;
  failedAt: string;
  data: string;
}

/** The shape of a dead letter's id; anything else cannot name a dead letter. */
export const DEAD_LETTER_ID = /^p(\d{1,3})-(\d{1,20}-\d{1,20})$/;

/** A dead letter's id taken apart: its partition and its entry id in that partition's stream. */
export interface DeadLetterRef {
  partition: number;
  entryId: string;
}

/**
 * The partition and entry id a dead letter's id names, or undefined when it names none of a topic
 * of `partitions` partitions (another shape, a partition out of range, an entry id Redis cannot
 * hold).
 */
export function parseDeadLetterId(id: string, partitions: number): DeadLetterRef | undefined {
  const match = DEAD_LETTER_ID.exec(id);
  if (!match) return undefined;
  const partition = Number(match[1]);
  const entry = parseStreamId(match[2]!);
  if (partition >= partitions || !entry) return undefined;
  return { partition, entryId: `${entry[0]}-${entry[1]}` };
}

/** The public id of entry `entryId` of partition `partition`'s dead-letter stream. */
export function deadLetterId(partition: number, entryId: string): string {
  return `p${partition}-${entryId}`;
}

function toDeadLetter(partition: number, entryId: string, fields: string[]): DeadLetter {
  const f = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) f.set(fields[i]!, fields[i + 1]!);
  return {
    id: deadLetterId(partition, entryId),
    partition,
    topic: f.get('topic') ?? '',
    stream: f.get('stream') ?? '',
    sourceId: f.get('source_id') ?? '',
    group: f.get('group') ?? '',
    consumer: f.get('consumer') ?? '',
    code: f.get('code') ?? '',
    reason: f.get('reason') ?? '',
    deliveries: Number(f.get('deliveries') ?? 0),
    failedAt: f.get('failed_at') ?? '',
    data: f.get('data') ?? '',
  };
}

/** Orders dead letters as lists show them: by stream id, ties by partition. */
function compareLetters(
  a: { partition: number; entryId: string },
  b: { partition: number; entryId: string },
): number {
  return compareIds(a.entryId, b.entryId) || a.partition - b.partition;
}

/**
 * Where partition `partition`'s part of a list starts after the cursor `after`: the letters
 * ordered after it are those with a greater stream id, or the same stream id in a later
 * partition. So the cursor's stream id is excluded in partitions up to the cursor's own and
 * included in the later ones.
 */
function startAfter(partition: number, after: DeadLetterRef | undefined): string {
  if (!after) return '-';
  return partition <= after.partition ? `(${after.entryId}` : after.entryId;
}

/**
 * Dead letters of a topic, oldest first across its `partitions` partitions: `count` of them (100
 * by default) after the dead letter `after` (a listed id; one that names none of this topic's
 * partitions lists nothing). Reads up to `count` from each partition's stream, each in its own
 * slot, and merges them.
 */
export async function listDeadLetters(
  redis: Redis,
  prefix: string,
  topic: Topic,
  partitions: number,
  options: { count?: number; after?: string } = {},
): Promise<DeadLetter[]> {
  const count = options.count ?? 100;
  const after =
    options.after === undefined ? undefined : parseDeadLetterId(options.after, partitions);
  if (options.after !== undefined && !after) return [];
  const keys = topicKeys(prefix, topic, partitions);
  const perPartition = await Promise.all(
    keys.partitions.map(async (_, p) => {
      const start = startAfter(p, after);
      // The greatest id has nothing after it (and Redis refuses an exclusive start there).
      if (start === `(${MAX_ID}`) return [];
      const rows = await redis.xrange(keys.dead(p), start, '+', 'COUNT', count);
      return rows.map(([entryId, fields]) => ({ partition: p, entryId, fields }));
    }),
  );
  return perPartition
    .flat()
    .sort(compareLetters)
    .slice(0, count)
    .map((row) => toDeadLetter(row.partition, row.entryId, row.fields));
}

/** How many dead letters a topic holds, over its `partitions` partitions. */
export async function countDeadLetters(
  redis: Redis,
  prefix: string,
  topic: Topic,
  partitions: number,
): Promise<number> {
  const keys = topicKeys(prefix, topic, partitions);
  const lengths = await Promise.all(keys.partitions.map((_, p) => redis.xlen(keys.dead(p))));
  return lengths.reduce((total, n) => total + n, 0);
}

/** One dead letter by its id, or undefined. */
export async function getDeadLetter(
  redis: Redis,
  prefix: string,
  topic: Topic,
  partitions: number,
  id: string,
): Promise<DeadLetter | undefined> {
  const ref = parseDeadLetterId(id, partitions);
  if (!ref) return undefined;
  const dead = topicKeys(prefix, topic, partitions).dead(ref.partition);
  const [row] = await redis.xrange(dead, ref.entryId, ref.entryId);
  return row ? toDeadLetter(ref.partition, row[0], row[1]) : undefined;
}

/** A dead letter that was not replayed, and why; it stays in the dead-letter stream. */
export interface Refusal {
  deadId: string;
  /**
   * `BW_ERR_NOT_FOUND` (no such dead letter, or already replayed), `BW_ERR_MESSAGE_MALFORMED`
   * (its data is not JSON), `BW_ERR_MESSAGE_INVALID` (it fails the topic's schema) or
   * `BW_ERR_CONFLICT` (its ordering key hashes to another partition now: `TOPIC_PARTITIONS`
   * changed since it was dead-lettered).
   */
  code: ErrorCode;
  reason: string;
}

export interface ReplayResult {
  replayed: { deadId: string; newId: string }[];
  refused: Refusal[];
}

/** Everything a replay needs. */
export interface ReplayTarget {
  redis: Redis;
  producer: Producer;
  prefix: string;
  topic: Topic;
  /** Partitions of the topic (`TOPIC_PARTITIONS`). */
  partitions: number;
  /** Approximate length kept of the partition stream on XADD (`STREAM_MAXLEN`). */
  maxLen: number;
}

// Moves one letter back onto its partition, only if it is still in the dead-letter stream: two
// replays of the same letter at once put it back once, and a crash cannot lose it or put it
// back twice. KEYS: a partition's dead-letter stream, that partition's stream (one hash tag, one
// slot); ARGV: entry id in the dead-letter stream, MAXLEN, data.
const MOVE_BACK = `
if redis.call('XDEL', KEYS[1], ARGV[1]) == 0 then return false end
return redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'data', ARGV[3])`;

/**
 * The message of a letter, checked as the producer checks what it publishes, or why not. It goes
 * back onto the partition it was dead-lettered from: its ordering key hashes there as long as the
 * partition count stands, and the move is one script in that partition's slot. When the producer
 * would publish it elsewhere (the partition count changed), it is refused rather than put on a
 * partition its conversation no longer reads in order.
 */
function messageOf(target: ReplayTarget, letter: DeadLetter): { data: string } | Refusal {
  let message: unknown;
  try {
    message = JSON.parse(letter.data);
  } catch (error) {
    const reason = `data is not JSON: ${String(error)}`;
    return { deadId: letter.id, code: 'BW_ERR_MESSAGE_MALFORMED', reason };
  }
  let data: string;
  try {
    data = target.producer.encode(target.topic, message);
  } catch (error) {
    if (!(error instanceof BotwireError)) throw error;
    return { deadId: letter.id, code: error.code, reason: error.message };
  }
  // A message without an ordering key may go to any partition: its own is as good as any.
  if (orderingKeyOf(message) === undefined) return { data };
  const own = topicKeys(target.prefix, target.topic, target.partitions).partitions[
    letter.partition
  ];
  const stream = target.producer.streamFor(target.topic, message);
  if (stream !== own) {
    const now = partitionOf(orderingKeyOf(message), target.partitions);
    return {
      deadId: letter.id,
      code: 'BW_ERR_CONFLICT',
      reason:
        `its ordering key now goes to ${stream} (partition ${now} of ${target.partitions}), not to ` +
        `partition ${letter.partition} it was dead-lettered from: the partition count changed, ` +
        'and a replay moves a letter back within its own partition only',
    };
  }
  return { data };
}

/** Replays the letters given (already read): one round trip per partition, the partitions at once. */
async function replayLetters(
  target: ReplayTarget,
  letters: readonly DeadLetter[],
  result: ReplayResult,
): Promise<void> {
  const { redis, prefix, topic, partitions, maxLen } = target;
  const keys = topicKeys(prefix, topic, partitions);
  const byPartition = new Map<number, { letter: DeadLetter; data: string }[]>();
  for (const letter of letters) {
    const checked = messageOf(target, letter);
    if ('code' in checked) {
      result.refused.push(checked);
      continue;
    }
    const moves = byPartition.get(letter.partition) ?? [];
    moves.push({ letter, data: checked.data });
    byPartition.set(letter.partition, moves);
  }
  // A pipeline per partition: its keys share the partition's slot, and a pipeline must not span
  // slots on a cluster.
  const outcomes = await Promise.all(
    [...byPartition].map(async ([p, moves]) => {
      const pipeline = redis.pipeline();
      for (const { letter, data } of moves) {
        const entryId = letter.id.slice(letter.id.indexOf('-') + 1);
        pipeline.eval(MOVE_BACK, 2, keys.dead(p), keys.partitions[p]!, entryId, maxLen, data);
      }
      const replies = (await pipeline.exec()) ?? [];
      return moves.map(({ letter }, i) => ({ deadId: letter.id, reply: replies[i] ?? [] }));
    }),
  );
  // Reported in the order the letters were given.
  const order = new Map(letters.map((l, i) => [l.id, i]));
  const settled = outcomes.flat().sort((a, b) => order.get(a.deadId)! - order.get(b.deadId)!);
  for (const { deadId, reply } of settled) {
    const [error, newId] = reply;
    if (error) throw error;
    if (typeof newId === 'string') result.replayed.push({ deadId, newId });
    else result.refused.push(gone(deadId));
  }
}

function gone(deadId: string): Refusal {
  return { deadId, code: 'BW_ERR_NOT_FOUND', reason: 'no such dead letter' };
}

/**
 * Puts dead letters back on their topic as new entries of their own partition and removes them
 * from its dead-letter stream, each atomically. A letter whose data still fails the topic's
 * schema (or is not JSON) is refused and stays where it is; an id that names no letter (or one
 * replayed meanwhile) is refused as `BW_ERR_NOT_FOUND`.
 */
export async function replayDeadLetters(
  target: ReplayTarget,
  ids: readonly string[],
): Promise<ReplayResult> {
  const result: ReplayResult = { replayed: [], refused: [] };
  const { redis, prefix, topic, partitions } = target;
  const found = await Promise.all(
    ids.map((id) => getDeadLetter(redis, prefix, topic, partitions, id)),
  );
  const letters: DeadLetter[] = [];
  found.forEach((letter, i) => {
    if (letter) letters.push(letter);
    else result.refused.push(gone(ids[i]!));
  });
  await replayLetters(target, letters, result);
  return result;
}

/**
 * Replays every letter the topic's dead-letter streams hold when called, partition by partition,
 * each oldest first and `batch` at a time (default 100). Letters dead-lettered again meanwhile (a
 * replayed message that fails again) are left for the next call rather than replayed in a loop.
 */
export async function replayAllDeadLetters(
  target: ReplayTarget,
  options: { batch?: number } = {},
): Promise<ReplayResult> {
  const { redis, prefix, topic, partitions } = target;
  const keys = topicKeys(prefix, topic, partitions);
  const batch = options.batch ?? 100;
  const result: ReplayResult = { replayed: [], refused: [] };
  for (let p = 0; p < partitions; p += 1) {
    const dead = keys.dead(p);
    const [last] = await redis.xrevrange(dead, '+', '-', 'COUNT', 1);
    if (!last) continue;
    // Read up to the last letter there now: those added later wait for the next call.
    const end = last[0];
    let start = '-';
    for (;;) {
      const rows = await redis.xrange(dead, start, end, 'COUNT', batch);
      if (rows.length === 0) break;
      await replayLetters(
        target,
        rows.map(([entryId, fields]) => toDeadLetter(p, entryId, fields)),
        result,
      );
      const next = rows[rows.length - 1]![0];
      if (rows.length < batch || next === end) break;
      start = `(${next}`;
    }
  }
  return result;
}

/**
 * Reading and replaying a topic's dead-letter stream (`<prefix>:{<topic>}:dead`). Each dead letter
 * keeps the original `data`, the entry id it had, the error code and the reason. The topic
 * scripts (`./scripts/dead-letters.sh`) and the admin routes (`/v2/ops/dead-letters`) both go
 * through these functions.
 */
import { BotwireError, type ErrorCode } from '../errors.ts';
import type { Redis } from '../redis.ts';
import { compareIds } from './entries.ts';
import type { Producer } from './producer.ts';
import { deadLetterKey, type Topic } from './topics.ts';

export interface DeadLetter {
  /** Id in the dead-letter stream; pass it to `replayDeadLetters`. */
  id: string;
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

/** The shape of a stream entry id; anything else cannot name a dead letter. */
export const ENTRY_ID = /^\d{1,20}-\d{1,20}$/;

function toDeadLetter(id: string, fields: string[]): DeadLetter {
  const f = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) f.set(fields[i]!, fields[i + 1]!);
  return {
    id,
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

/** Dead letters of a topic, oldest first: `count` of them (100 by default) after the id `after`. */
export async function listDeadLetters(
  redis: Redis,
  prefix: string,
  topic: Topic,
  options: { count?: number; after?: string } = {},
): Promise<DeadLetter[]> {
  const start = options.after ? `(${options.after}` : '-';
  const rows = await redis.xrange(
    deadLetterKey(prefix, topic),
    start,
    '+',
    'COUNT',
    options.count ?? 100,
  );
  return rows.map(([id, fields]) => toDeadLetter(id, fields));
}

/** One dead letter by its id, or undefined. */
export async function getDeadLetter(
  redis: Redis,
  prefix: string,
  topic: Topic,
  id: string,
): Promise<DeadLetter | undefined> {
  if (!ENTRY_ID.test(id)) return undefined;
  const [row] = await redis.xrange(deadLetterKey(prefix, topic), id, id);
  return row ? toDeadLetter(row[0], row[1]) : undefined;
}

/** A dead letter that was not replayed, and why; it stays in the dead-letter stream. */
export interface Refusal {
  deadId: string;
  /**
   * `BW_ERR_NOT_FOUND` (no such dead letter, or already replayed), `BW_ERR_MESSAGE_MALFORMED`
   * (its data is not JSON) or `BW_ERR_MESSAGE_INVALID` (it fails the topic's schema).
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
  /** Approximate length kept of the partition stream on XADD (`STREAM_MAXLEN`). */
  maxLen: number;
}

// Moves one letter back onto its partition, only if it is still in the dead-letter stream: two
// replays of the same letter at once put it back once, and a crash cannot lose it or put it
// back twice. KEYS: dead-letter stream, partition stream (one hash tag, one slot); ARGV: dead
// id, MAXLEN, data.
const MOVE_BACK = `
if redis.call('XDEL', KEYS[1], ARGV[1]) == 0 then return false end
return redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'data', ARGV[3])`;

/** The message of a letter, checked as the producer checks what it publishes, or why not. */
function messageOf(
  target: ReplayTarget,
  letter: DeadLetter,
): { stream: string; data: string } | Refusal {
  let message: unknown;
  try {
    message = JSON.parse(letter.data);
  } catch (error) {
    const reason = `data is not JSON: ${String(error)}`;
    return { deadId: letter.id, code: 'BW_ERR_MESSAGE_MALFORMED', reason };
  }
  try {
    const data = target.producer.encode(target.topic, message);
    return { stream: target.producer.streamFor(target.topic, message), data };
  } catch (error) {
    if (!(error instanceof BotwireError)) throw error;
    return { deadId: letter.id, code: error.code, reason: error.message };
  }
}

/** Replays the letters given (already read), in one round trip. */
async function replayLetters(
  target: ReplayTarget,
  letters: readonly DeadLetter[],
  result: ReplayResult,
): Promise<void> {
  const { redis, prefix, topic, maxLen } = target;
  const dead = deadLetterKey(prefix, topic);
  const moves: { deadId: string; stream: string; data: string }[] = [];
  for (const letter of letters) {
    const checked = messageOf(target, letter);
    if ('code' in checked) result.refused.push(checked);
    else moves.push({ deadId: letter.id, ...checked });
  }
  if (moves.length === 0) return;
  const pipeline = redis.pipeline();
  for (const m of moves) pipeline.eval(MOVE_BACK, 2, dead, m.stream, m.deadId, maxLen, m.data);
  const replies = (await pipeline.exec()) ?? [];
  moves.forEach((m, i) => {
    const [error, newId] = replies[i] ?? [];
    if (error) throw error;
    if (typeof newId === 'string') result.replayed.push({ deadId: m.deadId, newId });
    else result.refused.push(gone(m.deadId));
  });
}

function gone(deadId: string): Refusal {
  return { deadId, code: 'BW_ERR_NOT_FOUND', reason: 'no such dead letter' };
}

/**
 * Puts dead letters back on their topic as new entries and removes them from the dead-letter
 * stream, each atomically. A letter whose data still fails the topic's schema (or is not JSON)
 * is refused and stays where it is; an id that names no letter (or one replayed meanwhile) is
 * refused as `BW_ERR_NOT_FOUND`.
 */
export async function replayDeadLetters(
  target: ReplayTarget,
  ids: readonly string[],
): Promise<ReplayResult> {
  const result: ReplayResult = { replayed: [], refused: [] };
  const letters: DeadLetter[] = [];
  for (const id of ids) {
    const letter = await getDeadLetter(target.redis, target.prefix, target.topic, id);
    if (letter) letters.push(letter);
    else result.refused.push(gone(id));
  }
  await replayLetters(target, letters, result);
  return result;
}

/**
 * Replays every letter the topic's dead-letter stream holds when called, `batch` at a time
 * (default 100), oldest first. Letters dead-lettered again meanwhile (a replayed message that
 * fails again) are left for the next call rather than replayed in a loop.
 */
export async function replayAllDeadLetters(
  target: ReplayTarget,
  options: { batch?: number } = {},
): Promise<ReplayResult> {
  const { redis, prefix, topic } = target;
  const result: ReplayResult = { replayed: [], refused: [] };
  const [last] = await redis.xrevrange(deadLetterKey(prefix, topic), '+', '-', 'COUNT', 1);
  if (!last) return result;
  const end = last[0];
  let after: string | undefined;
  for (;;) {
    const page = await listDeadLetters(redis, prefix, topic, {
      count: options.batch ?? 100,
      ...(after ? { after } : {}),
    });
    const letters = page.filter((l) => compareIds(l.id, end) <= 0);
    await replayLetters(target, letters, result);
    if (letters.length < page.length || page.length === 0) break;
    after = page[page.length - 1]!.id;
    if (after === end) break;
  }
  return result;
}

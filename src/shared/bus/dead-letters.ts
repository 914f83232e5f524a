/**
 * Reading and replaying a topic's dead-letter stream (`<prefix>:{<topic>}:dead`). Each dead letter
 * keeps the original `data`, the entry id it had, the error code and the reason.
 */
import { BotwireError } from '../errors.ts';
import type { Redis } from '../redis.ts';
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

/** Dead letters of a topic, oldest first. */
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

export interface ReplayResult {
  replayed: { deadId: string; newId: string }[];
  refused: { deadId: string; reason: string }[];
}

/**
 * Puts dead letters back on their topic as new entries and removes them from the dead-letter
 * stream. A letter whose data still fails the topic's schema (or is not JSON) is refused and
 * stays where it is.
 */
export async function replayDeadLetters(
  redis: Redis,
  producer: Producer,
  prefix: string,
  topic: Topic,
  ids: readonly string[],
): Promise<ReplayResult> {
  const dead = deadLetterKey(prefix, topic);
  const result: ReplayResult = { replayed: [], refused: [] };
  for (const deadId of ids) {
    const [row] = await redis.xrange(dead, deadId, deadId);
    if (!row) {
      result.refused.push({ deadId, reason: 'no such dead letter' });
      continue;
    }
    const letter = toDeadLetter(row[0], row[1]);
    let message: unknown;
    try {
      message = JSON.parse(letter.data);
      producer.encode(topic, message);
    } catch (error) {
      const reason =
        error instanceof BotwireError ? error.message : `data is not JSON: ${String(error)}`;
      result.refused.push({ deadId, reason });
      continue;
    }
    // Publish first, then delete: a crash in between replays twice, which consumers tolerate
    // (delivery is at-least-once); the reverse order could lose the letter.
    const newId = await producer.publish(topic, message);
    await redis.xdel(dead, deadId);
    result.replayed.push({ deadId, newId });
  }
  return result;
}

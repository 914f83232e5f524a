/** Replaying dead letters: what is asked, the confirmation, and the result as a sentence. */
import type { DeadLetterEvent, ReplayResult, ReplayTarget } from '../../api/types.ts';

/** The request body: `{"ids": [...]}` or `{"all": true}`. */
export function replayBody(target: ReplayTarget): ReplayTarget {
  return 'all' in target ? { all: true } : { ids: [...target.ids] };
}

/** The question asked before replaying. */
export function confirmQuestion(topic: string, target: ReplayTarget): string {
  if ('all' in target) return `Replay every dead letter of topic ${topic}?`;
  if (target.ids.length === 1) return `Replay dead letter ${target.ids[0]} of topic ${topic}?`;
  return `Replay ${target.ids.length} dead letters of topic ${topic}?`;
}

/** "3 replayed", "1 replayed, 2 refused", "nothing to replay". */
export function replaySummary(
  result: Pick<ReplayResult, 'replayed' | 'refused'> & { refused_count?: number },
): string {
  const refused = result.refused_count ?? result.refused.length;
  if (result.replayed === 0 && refused === 0) return 'nothing to replay';
  const parts = [`${result.replayed} replayed`];
  if (refused > 0) parts.push(`${refused} refused`);
  return parts.join(', ');
}

/** The `data` of a `dead-letter` event, or undefined when it is not one. */
export function parseDeadLetterEvent(data: unknown): Pick<DeadLetterEvent, 'topic'> | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const topic = (data as Record<string, unknown>).topic;
  return typeof topic === 'string' ? { topic } : undefined;
}

/**
 * Every server call of the operations page, and their query keys. Replays go through the same
 * code as `./scripts/dead-letters.sh`.
 */
import { withQuery, type Page } from '../ops-shared/page-query.ts';
import { jsonInit, requestJson } from '../ops-shared/request.ts';
import type { DeadLetter, ProcessesView, ReplayResult, TopicsView } from './operations-types.ts';
import { replayBody, type ReplayTarget } from './replay.ts';

/** Dead letters per page. */
export const DEAD_LETTERS_PAGE = 50;

const deadLetters = (topic: string) => `/v2/ops/dead-letters/${encodeURIComponent(topic)}`;

export const opsKeys = {
  all: ['ops'] as const,
  processes: ['ops', 'processes'] as const,
  topics: ['ops', 'topics'] as const,
  deadLetters: (topic: string) => ['ops', 'dead-letters', topic] as const,
  deadLetter: (topic: string, id: string) => ['ops', 'dead-letters', topic, id] as const,
};

export function getProcesses(): Promise<ProcessesView> {
  return requestJson('/v2/ops/processes');
}

export function getTopics(): Promise<TopicsView> {
  return requestJson('/v2/ops/topics');
}

export function listDeadLetters(topic: string, after?: string): Promise<Page<DeadLetter>> {
  return requestJson(withQuery(deadLetters(topic), { limit: DEAD_LETTERS_PAGE, after }));
}

export function getDeadLetter(topic: string, id: string): Promise<DeadLetter> {
  return requestJson(`${deadLetters(topic)}/${encodeURIComponent(id)}`);
}

export function replayDeadLetters(topic: string, target: ReplayTarget): Promise<ReplayResult> {
  return requestJson(`${deadLetters(topic)}/replay`, jsonInit('POST', replayBody(target)));
}

/**
 * Every server call of the operations page, and their query keys. Replays go through the same
 * code as `./scripts/dead-letters.sh`.
 */
import { api, unwrap } from '../../api/client.ts';
import type {
  BotsAtWorkView,
  DeadLetter,
  DeadLetterPage,
  ProcessesView,
  ReplayResult,
  ReplayTarget,
  Topic,
  TopicsView,
} from '../../api/types.ts';
import { replayBody } from './replay.ts';

/** Dead letters per page. */
export const DEAD_LETTERS_PAGE = 50;

export const opsKeys = {
  all: ['ops'] as const,
  processes: ['ops', 'processes'] as const,
  topics: ['ops', 'topics'] as const,
  bots: ['ops', 'bots'] as const,
  deadLetters: (topic: string) => ['ops', 'dead-letters', topic] as const,
  deadLetter: (topic: string, id: string) => ['ops', 'dead-letters', topic, id] as const,
};

// The topic comes from the page's URL; one the API does not know is its 4xx to answer.
const topicPath = (topic: string) => ({ topic: topic as Topic });

export async function getProcesses(): Promise<ProcessesView> {
  return unwrap(await api.GET('/v2/ops/processes'));
}

export async function getTopics(): Promise<TopicsView> {
  return unwrap(await api.GET('/v2/ops/topics'));
}

export async function getBotsAtWork(): Promise<BotsAtWorkView> {
  return unwrap(await api.GET('/v2/ops/bots'));
}

export async function listDeadLetters(topic: string, after?: string): Promise<DeadLetterPage> {
  return unwrap(
    await api.GET('/v2/ops/dead-letters/{topic}', {
      params: { path: topicPath(topic), query: { limit: DEAD_LETTERS_PAGE, after } },
    }),
  );
}

export async function getDeadLetter(topic: string, id: string): Promise<DeadLetter> {
  return unwrap(
    await api.GET('/v2/ops/dead-letters/{topic}/{id}', {
      params: { path: { ...topicPath(topic), id } },
    }),
  );
}

export async function replayDeadLetters(
  topic: string,
  target: ReplayTarget,
): Promise<ReplayResult> {
  return unwrap(
    await api.POST('/v2/ops/dead-letters/{topic}/replay', {
      params: { path: topicPath(topic) },
      body: replayBody(target),
    }),
  );
}

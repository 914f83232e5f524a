/**
 * Wires `retriver`: each `retriver` topic message is a question against a collection; the answer
 * goes to the `flow` topic addressed by the question's `reply_to` (intent `callback`, its
 * `request_id`), with `value` the answer text and `results` the chunks found (score, source,
 * snippet). A redelivered question answers again with the same turn id, which flow applies once.
 */
import type { Config } from '../config.ts';
import type { Outgoing } from '../shared/bus/producer.ts';
import { BotwireError } from '../shared/errors.ts';
import { checkBotMayRead } from '../shared/knowledge/access.ts';
import type { SearchHit } from '../shared/knowledge/search.ts';
import {
  bestSimilarity,
  relevantHits,
  searchKnowledge,
  type KnowledgeResult,
} from '../shared/knowledge/hybrid.ts';
import {
  createKnowledgeSearch,
  type KnowledgeSearch,
} from '../shared/knowledge/knowledge-search.ts';
import { recordUnanswered } from '../shared/knowledge/unanswered.ts';
import type { Logger } from '../shared/logger.ts';
import type { MessageContext } from '../shared/bus/delivery.ts';
import type { Service } from '../shared/process.ts';
import { consume, createKit, openDb } from '../shared/worker-kit.ts';
import { llmAnswer, nothingFound, passagesAnswer, type LlmSettings } from './answer.ts';

/** A `retriver` topic message (schemas/topics/retriver.json). */
export interface Question {
  source: string;
  turn_id?: string;
  collection_name: string;
  query: string;
  k?: number;
  reply_to?: {
    topic: 'flow';
    request_id: string;
    conversation: Record<string, unknown>;
    ordering_key?: string;
  };
  ordering_key?: string;
}

export const DEFAULT_K = 3;

interface Deps extends KnowledgeSearch {
  llm: LlmSettings | undefined;
}

type Answer =
  | { ok: false; error: string }
  | { ok: true; found: boolean; value: string; hits: SearchHit[]; by: 'passages' | 'llm' | 'none' };

async function answerOf(deps: Deps, question: Question, context: MessageContext): Promise<Answer> {
  let result: KnowledgeResult;
  // A flow's question carries its bot; a question without one (sent on the topic by an operator)
  // is not checked, and gets no answer anyway (no reply_to).
  const conversation = question.reply_to?.conversation;
  const bot = conversation?.app_id;
  const appId = typeof bot === 'string' ? bot : undefined;
  try {
    if (appId !== undefined) await checkBotMayRead(deps.db, question.collection_name, appId);
    result = await searchKnowledge(
      deps,
      question.collection_name,
      question.query,
      question.k ?? DEFAULT_K,
    );
  } catch (error) {
    if (error instanceof BotwireError && error.code === 'BW_ERR_NOT_FOUND') {
      return { ok: false, error: error.message };
    }
    if (error instanceof BotwireError && error.code === 'BW_ERR_COLLECTION_FORBIDDEN') {
      context.log.warn({ appId, collection: question.collection_name }, error.message);
      // The flow keeps only the text: the code leads it, so a flow can branch on it.
      return { ok: false, error: `${error.code}: ${error.message}` };
    }
    throw error;
  }
  if (result.fallback) {
    context.log.warn(
      { collection: question.collection_name, reason: result.fallback },
      'the question could not be embedded; answered by words',
    );
  }
  const threshold = result.min_similarity ?? deps.minSimilarity;
  const hits = relevantHits(result, threshold);
  if (hits.length === 0) {
    // A knowledge gap: recorded once per question (a redelivery names the same request).
    const conversationId = conversation?.conversation_id;
    await recordUnanswered(deps.db, {
      collectionId: result.collection_id,
      question: question.query,
      bestScore: bestSimilarity(result.hits),
      mode: result.mode,
      ...(appId ? { appId } : {}),
      ...(typeof conversationId === 'string' ? { conversationId } : {}),
      ...(question.reply_to ? { requestId: question.reply_to.request_id } : {}),
    });
    return {
      ok: true,
      found: false,
      value: nothingFound(question.collection_name),
      hits,
      by: 'none',
    };
  }
  if (deps.llm) {
    try {
      return {
        ok: true,
        found: true,
        value: await llmAnswer(deps.llm, question.query, hits),
        hits,
        by: 'llm',
      };
    } catch (error) {
      context.log.warn(
        { err: (error as Error).message },
        'LLM failed; answering with the passages',
      );
    }
  }
  return { ok: true, found: true, value: passagesAnswer(hits), hits, by: 'passages' };
}

export async function handleQuestion(
  deps: Deps,
  question: Question,
  context: MessageContext,
): Promise<Outgoing[]> {
  const answer = await answerOf(deps, question, context);
  const to = question.reply_to;
  context.log.info(
    {
      collection: question.collection_name,
      ok: answer.ok,
      hits: answer.ok ? answer.hits.length : 0,
      requestId: to?.request_id,
    },
    'question answered',
  );
  if (!to) return [];
  return [
    {
      topic: 'flow',
      message: {
        source: 'retriver',
        turn_id: `${to.request_id}:answer`,
        ...(to.ordering_key ? { ordering_key: to.ordering_key } : {}),
        intent: 'callback',
        conversation: to.conversation,
        request_id: to.request_id,
        ...(answer.ok
          ? {
              ok: true,
              found: answer.found,
              value: answer.value,
              answered_by: answer.by,
              results: answer.hits.map(({ chunk_id, score, source, snippet }) => ({
                chunk_id,
                score,
                source,
                snippet,
              })),
            }
          : { ok: false, error: answer.error }),
      },
    },
  ];
}

export async function startRetriever(
  config: Config,
  logger: Logger,
  overrides: { fetch?: typeof fetch } = {},
): Promise<Service> {
  const kit = createKit(config, logger, { name: 'botwire-retriver' });
  const db = openDb(kit);
  const { knowledge } = config;
  const deps: Deps = {
    ...createKnowledgeSearch(config, db, overrides.fetch ? { fetch: overrides.fetch } : {}),
    llm: knowledge.llmApiUrl
      ? {
          baseUrl: knowledge.llmApiUrl,
          apiKey: knowledge.llmApiKey,
          model: knowledge.llmModel,
          timeoutMs: knowledge.llmTimeoutMs,
          fetch: overrides.fetch ?? fetch,
        }
      : undefined,
  };
  return consume<Question>(
    kit,
    'retriver',
    (question, context) => handleQuestion(deps, question, context),
    [() => deps.close(), () => db.destroy()],
  );
}

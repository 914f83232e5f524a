/**
 * Wires `flow`: Postgres (conversation state), the bot directory, the `flow` topic, and the loop
 * that fires effect deadlines (a knowledge answer that never came).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.ts';
import type { Logger } from '../shared/logger.ts';
import type { ConversationRef } from '../shared/messages.ts';
import type { ConversationState } from './engine/types.ts';
import type { HandoffEvent } from '../shared/events/types.ts';
import type { Service } from '../shared/process.ts';
import { consume, createKit, openDirectory, type Kit } from '../shared/worker-kit.ts';
import { addressPolicy } from './address-policy.ts';
import { finishTurns } from '../shared/bot-turns.ts';
import type { MessageContext } from '../shared/bus/delivery.ts';
import { handleTurn, type FlowInput } from './handle-turn.ts';
import { PatternMatcher } from './pattern-matcher.ts';
import { TestChatFlows } from '../shared/flows/test-chats.ts';
import { StateCache } from './state-cache.ts';
import { batchedSaveState } from './state-store.ts';
import { claimDue, settleDeadline } from './timeouts.ts';
import { sweepHandoffs } from './handoff-sweeper.ts';
import type { Knex } from '../shared/db.ts';
import { createEmbedders } from '../shared/embeddings/embedders.ts';
import { createUnderstanding } from './understanding.ts';
import { LlmUsage } from '../shared/flows/llm-usage.ts';
import { serveConversationTests } from './conversation-tests/serve.ts';

/** Publishes a failed result for every deadline that passed; runs until `signal` aborts. */
async function fireDeadlines(kit: Kit, signal: AbortSignal): Promise<void> {
  const { redis, producer, logger, config } = kit;
  while (!signal.aborted) {
    try {
      for (const due of await claimDue(redis, config.stream.prefix)) {
        await producer.publish('flow', {
          source: 'flow',
          turn_id: `${due.request_id}:timeout`,
          ordering_key: due.ordering_key,
          intent: 'callback',
          conversation: due.conversation,
          request_id: due.request_id,
          ok: false,
          error: 'no answer in time',
        });
        await settleDeadline(redis, config.stream.prefix, due.member);
      }
    } catch (error) {
      logger.warn({ err: error }, 'could not fire effect deadlines; will try again');
    }
    await sleep(500, undefined, { signal }).catch(() => undefined);
  }
}

/** Publishes the timeout of waiting handoffs past their deadline; runs until `signal` aborts. */
async function sweepHandoffTimeouts(kit: Kit, db: Knex, signal: AbortSignal): Promise<void> {
  const { producer, logger, config } = kit;
  while (!signal.aborted) {
    try {
      const published = await sweepHandoffs(db, producer);
      if (published > 0) logger.info({ published }, 'handoffs timed out');
    } catch (error) {
      logger.warn({ err: error }, 'could not sweep handoff timeouts; will try again');
    }
    await sleep(config.flow.handoffSweepMs, undefined, { signal }).catch(() => undefined);
  }
}

export async function startFlow(config: Config, logger: Logger): Promise<Service> {
  if (!config.credentialsKey) throw new Error('CREDENTIALS_KEY is required');
  const policy = addressPolicy(config.flow.httpAllow); // throws on a malformed entry, before any connection
  const kit = createKit(config, logger, { name: 'botwire-flow' });
  const { db, directory } = await openDirectory(kit, config.credentialsKey);
  // The model's thread starts at the first free text that needs it, not here.
  const embedders = createEmbedders(config.embeddings);
  const understanding = createUnderstanding(
    embedders.forChoice(config.flow.matchEmbeddings),
    (error) => logger.warn({ err: error }, 'free text not scored by meaning; exact matching only'),
  );
  const deps = {
    db,
    redis: kit.redis,
    prefix: config.stream.prefix,
    directory,
    http: { policy, maxBodyBytes: config.flow.httpMaxBodyBytes },
    budget: {
      httpSteps: config.flow.httpMaxSteps,
      httpMs: config.flow.httpTurnBudgetMs,
      stateBytes: config.flow.stateMaxBytes,
    },
    effectTimeoutMs: config.flow.effectTimeoutMs,
    skipLanguage: config.skipLanguage,
    cache: new StateCache(10_000, config.flow.stateCacheBytes),
    save: batchedSaveState(db),
    onStateChanged: (conversation: ConversationRef, state: ConversationState) =>
      kit.events.publish('conversation', {
        app_id: conversation.app_id,
        conversation_id: conversation.conversation_id,
        channel_type: conversation.channel_type,
        ...(state.state === null ? {} : { state: state.state }),
        ...(state.ended ? { ended: true } : {}),
      }),
    handoffTimeoutS: config.flow.handoffTimeoutS,
    onHandoff: (event: HandoffEvent) => kit.events.publish('handoff', event),
    understanding,
    matching: config.flow.matching,
    llm: {
      settings: {
        baseUrl: config.knowledge.llmApiUrl,
        apiKey: config.knowledge.llmApiKey,
        model: config.knowledge.llmModel,
        dailyTokens: config.flow.llmDailyTokens,
        turnTokens: config.flow.llmTurnTokens,
      },
      redis: kit.redis,
      prefix: config.stream.prefix,
      usage: new LlmUsage(kit.redis, config.stream.prefix),
    },
    patterns: new PatternMatcher({ logger }),
    testChats: new TestChatFlows(db),
  };
  if (config.skipLanguage) logger.info('LANGUAGE_HOP=when_needed: replies go straight to channel');
  const stop = new AbortController();
  const deadlines = fireDeadlines(kit, stop.signal);
  const sweeper = sweepHandoffTimeouts(kit, db, stop.signal);
  // Conversation tests the api asks for run here, on this process's engine, model and patterns.
  const tests = serveConversationTests(
    {
      redisUrl: config.redisUrl,
      redisTlsCa: config.redisTlsCa,
      streamPrefix: config.stream.prefix,
    },
    {
      understanding,
      patterns: deps.patterns,
      matching: config.flow.matching,
      turn: {
        budget: { httpSteps: config.flow.httpMaxSteps, httpMs: config.flow.httpTurnBudgetMs },
        llm: { turnTokens: config.flow.llmTurnTokens, model: config.knowledge.llmModel },
      },
      maxBodyBytes: config.flow.httpMaxBodyBytes,
      log: logger.child({ part: 'conversation-tests' }),
    },
  );
  const handle = async (message: FlowInput, context: MessageContext) => {
    const out = await handleTurn(deps, message, context);
    // A turn that publishes nothing (a state that says nothing, a redelivery) never reaches
    // channel, which finishes the others: it is finished here, or it would count against its
    // bot's backlog until the horizon.
    if (out.length === 0) {
      const appId = message.conversation.app_id;
      await finishTurns(kit.redis, config.stream.prefix, appId, [message.turn_id]).catch(
        () => undefined,
      );
    }
    return out;
  };
  return consume<FlowInput>(kit, 'flow', handle, [
    async () => {
      stop.abort();
      await deadlines;
      await sweeper;
      await tests.close();
    },
    () => directory.close(),
    () => embedders.close(),
    () => deps.patterns.close(),
    () => db.destroy(),
  ]);
}

/**
 * One turn of a conversation: the flow topic's message becomes an engine event, the engine runs
 * on the stored state, HTTP steps are carried out at once (their results fed back until the turn
 * settles), a knowledge question goes to `retriver` with a deadline, the new state is committed,
 * and only then are the bot's messages published (to `language`, which translates and passes them
 * to `channel`).
 *
 * Exactly once: a turn id already applied to the state is not applied again; if it was the last
 * one, what it published is published again (the consumer may have died before its ack), and the
 * downstream components send each message once.
 */
import type { BotDirectory } from '../shared/bots/directory.ts';
import type { MessageContext } from '../shared/bus/delivery.ts';
import type { Outgoing } from '../shared/bus/producer.ts';
import type { Knex } from '../shared/db.ts';
import { DEFAULT_FLOW_BUDGET } from '../shared/flows/flow-budget.ts';
import type { TestChatFlows } from '../shared/flows/test-chats.ts';
import { TurnTrace } from './turn-trace.ts';
import type { Flow } from '../shared/flows/types.ts';
import type { ConversationRef, InternalMessage } from '../shared/messages.ts';
import { storable, storableDeep } from '../shared/pg-text.ts';
import type { Redis } from '../shared/redis.ts';
import { countTurn } from './analytics/turn-counts.ts';
import type { ConversationState, FlowEvent } from './engine/types.ts';
import { runHttpEffect, type HttpOptions } from './http-effect.ts';
import { restartIfRemoved } from './removed-state.ts';
import type { StateCache } from './state-cache.ts';
import { loadState, saveState, type StoredState } from './state-store.ts';
import { addDeadline } from './timeouts.ts';
import { buildOutbox } from './outbox.ts';
import type { HandoffEvent } from '../shared/events/types.ts';
import { END_STATUS, handoffIdOf, saveWithHandoff } from './handoff-store.ts';
import { handoffEvent, handoffGate, type HandoffMessage } from './handoff-turn.ts';
import type { MatchSettings } from './engine/meaning.ts';
import { withMeaning, type Understanding } from './understanding.ts';
import { pickByLlm } from './understanding-llm.ts';
import { recordTurnNotes } from './turn-notes.ts';
import { runLlmStep, type LlmDeps } from './llm-call.ts';
import type { PatternMatcher } from './pattern-matcher.ts';
import { apology, settleTurn } from './settle-turn.ts';

export interface FlowInput {
  source: string;
  turn_id: string;
  ordering_key?: string;
  intent: 'user_input' | 'callback' | 'dialog' | 'handoff' | 'move';
  conversation: ConversationRef;
  message?: InternalMessage;
  detected_language?: string;
  voice?: boolean;
  request_id?: string;
  ok?: boolean;
  value?: unknown;
  error?: string;
  /** Knowledge answers: whether a passage was relevant enough. */
  found?: boolean;
  /** Intent `handoff`: which handoff ends and how (docs/handoff.md). */
  handoff?: HandoffMessage;
  /** Intent `move`: the state whose wait the user's answer goes to (docs/outbound.md). */
  move?: { state: string };
}

export interface TurnDeps {
  db: Knex;
  redis: Redis;
  prefix: string;
  directory: BotDirectory;
  /** How HTTP steps reach out: the address policy, the answer cap. */
  http: HttpOptions;
  /** Budgets of one turn; the defaults below when absent. */
  budget?: Partial<TurnBudget>;
  /** How long a knowledge answer may take before the flow goes on without it (ms). */
  effectTimeoutMs: number;
  /**
   * Send the bot's messages straight to `channel`: no translation or speech provider, so
   * `language` would pass them on unchanged (LANGUAGE_HOP=when_needed). @defaultValue false
   */
  skipLanguage?: boolean;
  /** States this process wrote last, to skip reading them back; none by default. */
  cache?: StateCache;
  /** Writes the state after a turn; `saveState` one by one when absent. */
  save?: (input: Parameters<typeof saveState>[1]) => Promise<StoredState>;
  /** Told of each conversation whose flow state a turn changed (the live `conversation` event). */
  onStateChanged?: (conversation: ConversationRef, state: ConversationState) => void;
  /** How long a handoff waits for an agent when its bot sets no `timeout_s` (seconds). @defaultValue 900 */
  handoffTimeoutS?: number;
  /** Told of each handoff a turn opened or ended (the live `handoff` event). */
  onHandoff?: (event: HandoffEvent) => void;
  /** Scores free text by meaning against options and intents; exact matching only when absent. */
  understanding?: Understanding;
  /** The rule of matching by meaning (`FLOW_MATCH_MIN_SCORE`, `FLOW_MATCH_MARGIN`). */
  matching?: MatchSettings;
  /** How `llm` steps reach the model and what they may spend; absent: they fail as unavailable. */
  llm?: LlmDeps;
  /** Matches waits' patterns off this thread, with a deadline; in this thread when absent. */
  patterns?: PatternMatcher;
  /** The flows of test chats (console channel), which run the flow they started with. */
  testChats?: TestChatFlows;
}

/** What one turn may spend (`FLOW_HTTP_MAX_STEPS`, `FLOW_HTTP_TURN_BUDGET_MS`, `FLOW_STATE_MAX_BYTES`). */
export interface TurnBudget {
  /** HTTP steps one turn may make. @defaultValue 10 */
  httpSteps: number;
  /** Time all HTTP steps of one turn may take together (ms). @defaultValue 30000 */
  httpMs: number;
  /** Largest state (JSON of the state and the outbox) a turn may store (bytes). @defaultValue 1048576 */
  stateBytes: number;
}

export const DEFAULT_TURN_BUDGET: TurnBudget = {
  ...DEFAULT_FLOW_BUDGET,
  stateBytes: 1024 * 1024,
};

function toEvent(input: FlowInput): FlowEvent | undefined {
  if (input.intent === 'callback') {
    // Mended like an HTTP step's answer (`http-effect.ts`): a knowledge answer may hold an LLM's
    // words, and what the flow keeps of it is stored in `jsonb`.
    return {
      type: 'effect_result',
      request_id: input.request_id ?? '',
      ok: input.ok === true,
      ...(input.value === undefined ? {} : { value: storableDeep(input.value) }),
      ...(input.error ? { error: storable(input.error) } : {}),
      ...(typeof input.found === 'boolean' ? { found: input.found } : {}),
    };
  }
  if (input.intent === 'move') return input.move && { type: 'move', state: input.move.state };
  const message = input.message;
  if (!message) return undefined;
  if (message.message_type === 'dialog') return { type: 'reset' };
  if (message.message_type === 'text')
    return { type: 'input', message_type: 'text', text: message.text };
  if (message.message_type === 'interactive_reply') {
    return {
      type: 'input',
      message_type: 'interactive_reply',
      choice_id: message.choice_id,
      ...(message.title ? { text: message.title } : {}),
    };
  }
  return { type: 'input', message_type: message.message_type, raw: message };
}

function setDeadline(
  deps: TurnDeps,
  requestId: string,
  orderingKey: string,
  conversation: ConversationRef,
): Promise<void> {
  return addDeadline(
    deps.redis,
    deps.prefix,
    { request_id: requestId, ordering_key: orderingKey, conversation },
    deps.effectTimeoutMs,
  );
}

export async function handleTurn(
  deps: TurnDeps,
  input: FlowInput,
  context: MessageContext,
): Promise<Outgoing[]> {
  try {
    return await runOneTurn(deps, input, context);
  } catch (error) {
    // A failed turn may have left the cached state half-changed, or found it stale: read it anew.
    deps.cache?.delete(input.conversation.conversation_id);
    throw error;
  }
}

async function runOneTurn(
  deps: TurnDeps,
  input: FlowInput,
  context: MessageContext,
): Promise<Outgoing[]> {
  const { conversation, turn_id: turnId } = input;
  const bot = await deps.directory.byAppId(conversation.app_id);
  if (!bot) {
    context.log.warn(
      { appId: conversation.app_id },
      'turn for a bot that no longer exists; dropped',
    );
    return [];
  }
  const stored =
    deps.cache?.get(conversation.conversation_id) ??
    (await loadState(deps.db, conversation.conversation_id));
  if (stored.recentTurns.includes(turnId)) {
    const last = stored.recentTurns[stored.recentTurns.length - 1] === turnId;
    context.log.info({ republished: last }, 'turn already applied');
    if (!last || !Array.isArray(stored.outbox)) return [];
    const outbox = stored.outbox as Outgoing[];
    for (const { topic, message } of outbox) {
      if (topic !== 'retriver') continue;
      const { reply_to: to } = message as {
        reply_to: { request_id: string; ordering_key: string; conversation: ConversationRef };
      };
      await setDeadline(deps, to.request_id, to.ordering_key, to.conversation);
    }
    return outbox;
  }
  const gate = await handoffGate(deps.db, input, stored.state);
  if (gate.kind === 'quiet') {
    // Nothing is stored: the channel already wrote the user's message to the transcript.
    context.log.info({ handoff: stored.state.handoff?.id }, `handoff: ${gate.why}; quiet`);
    return [];
  }
  const first = gate.kind === 'end' ? gate.event : toEvent(input);
  if (!first) return [];
  let event: FlowEvent = first;

  // A test chat runs the flow it started with, and gets a trace of every turn (docs/console.md).
  const testChat = conversation.channel_type === 'console';
  const flow = (
    testChat ? await deps.testChats?.flowOf(conversation.app_id, conversation.chat_id) : bot.flow
  ) as Flow | undefined;
  if (!flow) {
    context.log.warn({ appId: conversation.app_id }, 'turn of an unknown test chat; dropped');
    return [];
  }
  let state = stored.state;
  // The current flow version may no longer have the state the conversation waits in (the end
  // of a handoff enters a state of its own, or starts over when the flow lacks it).
  if (gate.kind === 'run') {
    ({ state, event } = await restartIfRemoved(
      deps.db,
      { bot, flow, state, event, conversationId: conversation.conversation_id, turnId },
      context,
    ));
  }

  event = await withMeaning(deps.understanding, flow, state, event);
  const resetKeywords = conversation.channel_type === 'telegram' ? ['/start'] : [];
  const handoffKeywords = bot.handoff?.keywords ?? [];
  const picked = await pickByLlm(deps.llm, flow, state, event, {
    appId: conversation.app_id,
    id: turnId,
    ...(deps.matching ? { matching: deps.matching } : {}),
    keywords: [...(flow.reset_keywords ?? []), ...resetKeywords, ...handoffKeywords],
  });
  event = picked.event;
  // Nobody else pays for a trace.
  const trace = testChat ? new TurnTrace(event, state.vars) : undefined;
  if (picked.calls.length > 0) trace?.llm(picked.calls);
  let counter = 0;
  const options = {
    ...(deps.matching ? { matching: deps.matching } : {}),
    newRequestId: () => `${turnId}:${(counter += 1)}`,
    resetKeywords,
    handoffKeywords,
    newHandoffId: () => handoffIdOf(conversation.conversation_id, turnId),
    now: new Date().toISOString(),
  };
  const budget = { ...DEFAULT_TURN_BUDGET, ...deps.budget };
  const settled = await settleTurn(
    {
      appId: conversation.app_id,
      budget,
      llm: {
        turnTokens: deps.llm?.settings.turnTokens ?? 0,
        model: deps.llm?.settings.model ?? '',
        spent: picked.tokens,
      },
      ...(deps.patterns ? { patterns: deps.patterns } : {}),
      log: context.log,
      ...(trace ? { trace } : {}),
    },
    {
      http: (effect, timeoutMs) => runHttpEffect(deps.http, { ...effect, timeout_ms: timeoutMs }),
      llm: (effect, left) => runLlmStep(deps.llm, effect, { appId: conversation.app_id, ...left }),
    },
    flow,
    state,
    event,
    options,
  );
  state = settled.state;
  let { outputs, pending, opened, steps } = settled;
  const { understood } = settled;
  const llmCalls = [...picked.calls, ...settled.llmCalls];

  const userLanguage = state.language ?? conversation.user_language ?? input.detected_language;
  const ref: ConversationRef = {
    ...conversation,
    ...(userLanguage ? { user_language: userLanguage } : {}),
  };
  const orderingKey = input.ordering_key ?? conversation.conversation_id;
  const build = {
    turnId,
    orderingKey,
    ref,
    ...(deps.skipLanguage ? { skipLanguage: true } : {}),
    ...(input.voice ? { voice: true } : {}),
  };
  let outbox = buildOutbox(build, outputs, pending);
  let bytes = stateBytes(state, outbox);
  if (bytes > budget.stateBytes) {
    // Storing it would let one conversation hold any amount of memory and Postgres; the turn's
    // changes are dropped instead, and the user is told.
    context.log.warn(
      { code: 'BW_ERR_FLOW_STATE_TOO_LARGE', bytes, max: budget.stateBytes },
      'the conversation state would be too large; the conversation ends',
    );
    ({ state, outputs } = apology({ ...stored.state, state: state.state }));
    pending = undefined;
    opened = undefined;
    steps = [];
    outbox = buildOutbox(build, outputs, pending);
    bytes = stateBytes(state, outbox);
  }
  // Before the state commits: a redelivered turn finds its notes written and adds none.
  const said = input.message?.message_type === 'text' ? input.message.text : '';
  await recordTurnNotes(deps.db, conversation.conversation_id, turnId, {
    understood,
    llmCalls,
    said,
    ...(trace ? { trace: trace.note(state.vars, outputs) } : {}),
  });
  // The deadline goes in before the state commits (and again, unchanged, on a redelivery), so
  // a crash in between cannot leave the conversation waiting for an answer with no deadline.
  if (pending) await setDeadline(deps, pending.request_id, orderingKey, ref);
  const save = deps.save ?? ((i: Parameters<typeof saveState>[1]) => saveState(deps.db, i));
  const counts = countTurn({
    conversationId: conversation.conversation_id,
    appId: conversation.app_id,
    channelType: conversation.channel_type,
    language: userLanguage,
    flowVersion: bot.flowVersion,
    now: new Date(options.now),
    steps,
    firstTurn: stored.version === 0,
    userMessage: input.intent === 'user_input',
    sent: outputs.length,
    handoffOpened: opened !== undefined,
    handoffFrom: opened && !stored.state.ended ? (state.state ?? undefined) : undefined,
  });
  const saveInput = {
    appId: conversation.app_id,
    conversationId: conversation.conversation_id,
    previous: stored,
    state,
    turnId,
    outbox,
    counts,
  };
  const end = gate.kind === 'end' ? gate.end : undefined;
  const open = opened && {
    ...opened,
    appId: conversation.app_id,
    conversationId: conversation.conversation_id,
    timeoutS: bot.handoff?.timeout_s ?? deps.handoffTimeoutS ?? 900,
  };
  // A turn that opens or ends a handoff writes its row with the state, in one transaction.
  const saved =
    open || end ? await saveWithHandoff(deps.db, saveInput, { open, end }) : await save(saveInput);
  if (!saved) {
    context.log.info({ handoff: end?.id }, 'the handoff was claimed or ended meanwhile; no change');
    return [];
  }
  deps.cache?.set(conversation.conversation_id, saved, bytes);
  const ids = { appId: conversation.app_id, conversationId: conversation.conversation_id };
  if (end && gate.kind === 'end') {
    deps.onHandoff?.(
      handoffEvent({ ...ids, handoffId: end.id }, END_STATUS[end.action], gate.queue),
    );
  }
  if (open) deps.onHandoff?.(handoffEvent({ ...ids, handoffId: open.id }, 'waiting', open.queue));
  if (state.state !== stored.state.state || state.ended !== stored.state.ended)
    deps.onStateChanged?.(conversation, state);
  return outbox;
}

/** What a turn stores: the JSON of its state and of what it publishes (kept for redeliveries). */
function stateBytes(state: ConversationState, outbox: Outgoing[]): number {
  return Buffer.byteLength(JSON.stringify(state)) + Buffer.byteLength(JSON.stringify(outbox));
}

/**
 * The flow engine's inputs and outputs. The engine is pure: the `flow` component loads the
 * conversation state, turns a topic message into a `FlowEvent`, calls `runTurn`, stores the new
 * state, publishes the outputs and carries out the effects, whose results come back as events.
 */
import type { ErrorCode } from '../../shared/errors.ts';
import type {
  Button,
  HttpMethod,
  LlmGuardrails,
  LlmOutput,
  OptionList,
} from '../../shared/flows/types.ts';
import type { MatchSettings, MeaningScores, Understood } from './meaning.ts';

/** What the conversation waits for between turns. */
export type Awaiting =
  | {
      kind: 'input';
      /** The state whose `wait` (or `choose_language` action) asked. */
      state: string;
      /** Invalid answers so far. */
      retries: number;
      /** Set when a `choose_language` action at this index asked, not the state's `wait`. */
      action_index?: number;
    }
  | {
      kind: 'effect';
      request_id: string;
      state: string;
      action_index: number;
      /** The answer the turn accepted before the effect: `input` again once it is back. */
      input?: unknown;
      /** The intent the turn's input was understood as: `{"intent": name}` after the effect. */
      intent?: string;
    };

/** One conversation's stored state; JSON, kept by the `flow` component between turns. */
export interface ConversationState {
  /** The current state; null before the first turn. */
  state: string | null;
  vars: Record<string, unknown>;
  awaiting?: Awaiting;
  /** The language the user chose (a `choose_language` action); kept across resets. */
  language?: string;
  /** The flow reached an end; the next input starts over from `start`. */
  ended?: boolean;
  /**
   * Set while a person has the conversation (docs/handoff.md): the bot stays quiet until the
   * handoff `id` ends. `since` is when it started (ISO 8601).
   */
  handoff?: { id: string; since: string };
}

/** A fresh conversation: no state, no variables. */
export function newConversation(): ConversationState {
  return { state: null, vars: {} };
}

export interface InputEvent {
  type: 'input';
  text?: string;
  /** The id of a pressed button or chosen list row. */
  choice_id?: string;
  /** The internal message type (text, button, interactive_reply, image, ...). */
  message_type: string;
  /** Platform details (media ids) for `expect: "any"` waits answered without text. */
  raw?: unknown;
  /** How close the text is in meaning to the options and intents (docs/flows.md). */
  meaning?: MeaningScores;
}

export interface EffectResultEvent {
  type: 'effect_result';
  request_id: string;
  ok: boolean;
  value?: unknown;
  error?: string;
  /** The catalogue code of a failure botwire itself decided (a refused address, a budget). */
  code?: ErrorCode;
  /** A knowledge answer: whether a passage was relevant enough (stored as `<store>_found`). */
  found?: boolean;
}

/** A piece of an `llm` prompt: the flow's own words, or a value sent as delimited data. */
export type PromptPart = { text: string } | { data: string; name: string };

export interface ResetEvent {
  type: 'reset';
}

/** How a handoff ends: handed back at a state, closed, or timed out (its fallback). */
export type HandoffAction = 'return' | 'close' | 'timeout';

/** A handoff ended (the flow topic's `intent: "handoff"` message, checked against its row). */
export interface HandoffEndEvent {
  type: 'handoff_end';
  /** The handoff's id; an event for another handoff than the conversation's changes nothing. */
  id: string;
  action: HandoffAction;
  /** The state entered: the chosen one (return) or the fallback (timeout); unused for close. */
  state?: string;
}

/**
 * The bot wrote first and the user's answer goes to `state` (docs/outbound.md, "The answer goes
 * to a state"): the conversation waits at that state's `wait` as if the state had just asked.
 */
export interface MoveEvent {
  type: 'move';
  state: string;
}

export type FlowEvent = InputEvent | EffectResultEvent | ResetEvent | HandoffEndEvent | MoveEvent;
/** Alias of `FlowEvent`, the name used in the design notes. */
export type Event = FlowEvent;

/** An internal outbound message (PRODUCT.md message types); the `channel` renders it. */
export type OutMessage =
  | { message_type: 'text'; text: string }
  | { message_type: 'button'; text: string; buttons: Button[] }
  | { message_type: 'option_list'; text: string; list: OptionList }
  | { message_type: 'image'; url: string; caption?: string }
  | { message_type: 'document'; url: string; filename?: string; caption?: string };

/** Work the engine asks for; its outcome comes back as an `effect_result` with the same id. */
export type Effect =
  | {
      kind: 'http';
      request_id: string;
      method: HttpMethod;
      url: string;
      headers: Record<string, string>;
      /** Present when the action has a body; sent as JSON. */
      body?: unknown;
      /** Milliseconds. */
      timeout_ms: number;
      /** Set when the URL cannot be made safely from the values; the call is not made. */
      refused?: string;
    }
  | { kind: 'retrieve'; request_id: string; collection: string; query: string; k: number }
  | {
      kind: 'llm';
      request_id: string;
      /** The operator's instructions (no values in them). */
      system?: string;
      prompt: PromptPart[];
      output: LlmOutput;
      model?: string;
      max_tokens: number;
      temperature: number;
      /** Milliseconds, the repair attempt included. */
      timeout_ms: number;
      guardrails: LlmGuardrails;
    };

/** Something that went wrong in the flow itself (not in the engine); for logs and metrics. */
export interface FlowRuntimeError {
  code: Extract<
    ErrorCode,
    'BW_ERR_FLOW_LOOP' | 'BW_ERR_FLOW_STUCK' | 'BW_ERR_FLOW_BUDGET' | 'BW_ERR_UNKNOWN_STATE'
  >;
  message: string;
  /** The state the engine was in. */
  state: string;
}

export interface TurnOptions {
  /** A fresh id for each effect (the caller makes it deterministic, e.g. from the turn id). */
  newRequestId: () => string;
  /** Reset keywords from the channel on top of the flow's own (Telegram: `["/start"]`). */
  resetKeywords?: readonly string[];
  /** State entries allowed in one turn before the loop guard stops it. @defaultValue 50 */
  maxStateEntries?: number;
  /** What the user is told when the flow is stopped by the loop guard or is stuck. */
  errorText?: string;
  /** The bot's handoff keywords: a whole input equal to one (trimmed, any case) starts a handoff. */
  handoffKeywords?: readonly string[];
  /**
   * The id of a handoff this turn starts (a UUID; the caller derives it from the turn, so a
   * retried turn opens the same one). @defaultValue `newRequestId()`
   */
  newHandoffId?: () => string;
  /** Now, as ISO 8601: when a handoff started. @defaultValue the current time */
  now?: string;
  /** The rule of matching by meaning; the flow's `matching` overrides it. @defaultValue DEFAULT_MATCHING */
  matching?: MatchSettings;
  /**
   * Whether a wait's `pattern` accepts the trimmed text (at most 1024 characters). The `flow`
   * component answers from matches made in a thread with a deadline (`pattern-matcher.ts`).
   * @defaultValue matched here, with RE2 (`CompiledPatterns` of `src/shared/flows/pattern.ts`)
   */
  testPattern?: (pattern: string, text: string) => boolean;
  /**
   * Characters this turn's templates produced in its earlier runs (a turn runs again after each
   * effect): they count toward its `MAX_RENDERED_CHARS`. @defaultValue 0
   */
  rendered?: number;
}

/** A handoff the turn started; the caller records it (docs/handoff.md). */
export interface HandoffStart {
  id: string;
  reason: 'step' | 'keyword' | 'intent';
  queue?: string;
  /** The state entered when no agent claims it in time. */
  fallback: string;
}

/**
 * One thing a turn did, in order, for the test chat's turn trace (docs/console.md): a state
 * entered, the way it left (a transition by its index and condition, `next`, the end), where it
 * waits, an effect it asked for, or why it stopped.
 */
export type TraceStep =
  | { enter: string }
  /** The flow (re)started at its start state: a first message, an end or a reset before. */
  | { start: string }
  | { transition: { from: string; to: string; index: number; when?: unknown } }
  | { next: { from: string; to: string } }
  | { wait: string }
  /** The answer did not fit the wait: asked again. */
  | { retry: string }
  /** The answer did not fit the wait and its retries were spent: it went to its `on_fail`. */
  | { fallback: string }
  /** A knowledge answer the flow took, and whether it found a relevant passage. */
  | { knowledge: { state: string; found: boolean } }
  | { end: string }
  | { effect: { state: string; kind: Effect['kind'] } }
  | { stopped: { state: string; code: FlowRuntimeError['code'] } };

export interface TurnResult {
  state: ConversationState;
  /** Messages to send, in order. */
  outputs: OutMessage[];
  /** At most one effect: an effect ends the turn. */
  effects: Effect[];
  errors: FlowRuntimeError[];
  /** Set when the turn started a handoff: the state's `handoff` is set and the turn stopped. */
  handoff?: HandoffStart;
  /** Options and intents the turn matched by meaning (for the transcript). */
  understood?: Understood[];
  /** What the run did, in order (the test chat's turn trace). */
  trace: TraceStep[];
  /**
   * Characters the turn's templates produced, `TurnOptions.rendered` included: pass it as that
   * option when the turn runs again after its effect.
   */
  rendered: number;
}

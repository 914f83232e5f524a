/**
 * What one turn adds to a bot's analytics (docs/analytics.md): read off the engine's steps and
 * the turn's outcome, keyed by the day, channel type, language and flow version it ran on. Pure;
 * `rollup-sql.ts` writes it with the turn's state, so it is counted exactly when the turn is
 * applied. Test chats (channel type `console`) count nothing.
 */
import type { TraceStep } from '../engine/types.ts';
import type { StateCounters, TurnCounter } from '../../shared/analytics-counters.ts';
import { dayOf } from '../../shared/utc-day.ts';

type StateCounts = StateCounters & { state: string };

/** One turn's counts, as `rollup-sql.ts` reads them (JSON, snake_case). */
export type TurnCounts = Record<TurnCounter, number> & {
  conversation_id: string;
  app_id: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  channel_type: string;
  language: string;
  flow_version: number;
  states: StateCounts[];
};

export interface TurnOutcome {
  conversationId: string;
  appId: string;
  channelType: string;
  /** The conversation's language, if known. */
  language?: string | undefined;
  /** The bot's published version the turn ran; absent for none. */
  flowVersion?: number | null | undefined;
  now: Date;
  /** The engine's steps over every run of the turn, in order. */
  steps: readonly TraceStep[];
  /** The conversation's first stored turn. */
  firstTurn: boolean;
  /** The turn handled a user's message (text, media or a button press). */
  userMessage: boolean;
  sent: number;
  /** The turn handed the conversation to a person. */
  handoffOpened: boolean;
  /** The state it was handed over in, when it was in one (not at a first message or an end). */
  handoffFrom?: string | undefined;
}

/** The counts of a turn, or null when it counts nothing (a test chat). */
export function countTurn(turn: TurnOutcome): TurnCounts | null {
  if (turn.channelType === 'console') return null;
  const states = new Map<string, StateCounts>();
  const of = (state: string): StateCounts => {
    let counts = states.get(state);
    if (!counts) {
      counts = {
        state,
        entered: 0,
        left_forward: 0,
        ended: 0,
        reasks: 0,
        fallbacks: 0,
        handoffs: 0,
      };
      states.set(state, counts);
    }
    return counts;
  };
  let conversations = 0;
  let completed = 0;
  let reasks = 0;
  let fallbacks = 0;
  let unanswered = 0;
  for (const step of turn.steps) {
    if ('start' in step) conversations += 1;
    else if ('enter' in step) of(step.enter).entered += 1;
    else if ('transition' in step) of(step.transition.from).left_forward += 1;
    else if ('next' in step) of(step.next.from).left_forward += 1;
    else if ('end' in step) {
      of(step.end).ended += 1;
      completed += 1;
    } else if ('retry' in step) {
      of(step.retry).reasks += 1;
      reasks += 1;
    } else if ('fallback' in step) {
      // A fallback leaves its state too: for its way out, the state's on_fail.
      of(step.fallback).fallbacks += 1;
      of(step.fallback).left_forward += 1;
      fallbacks += 1;
    } else if ('knowledge' in step && !step.knowledge.found) unanswered += 1;
  }
  if (turn.handoffFrom !== undefined) of(turn.handoffFrom).handoffs += 1;
  return {
    conversation_id: turn.conversationId,
    app_id: turn.appId,
    day: dayOf(turn.now),
    channel_type: turn.channelType,
    language: turn.language ?? '',
    flow_version: turn.flowVersion ?? 0,
    conversations,
    new_users: turn.firstTurn ? 1 : 0,
    messages_in: turn.userMessage ? 1 : 0,
    messages_out: turn.sent,
    completed,
    reasks,
    fallbacks,
    handoffs: turn.handoffOpened ? 1 : 0,
    unanswered,
    states: [...states.values()],
  };
}

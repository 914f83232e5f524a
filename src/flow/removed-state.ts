/**
 * A conversation waiting in a state that the bot's current flow version no longer has (a publish
 * or a rollback removed it; docs/flows.md, "Versions"). Its next turn starts over at `start`, with
 * its variables cleared and its chosen language kept, exactly as a reset keyword does: the new
 * flow's `start` may rely on variables being unset, and values gathered by states that no longer
 * exist may mean nothing to it. The transcript gets a `note` row saying so, which is never sent.
 */
import type { BotRecord } from '../shared/bots/types.ts';
import type { MessageContext } from '../shared/bus/delivery.ts';
import type { Knex } from '../shared/db.ts';
import type { Flow } from '../shared/flows/types.ts';
import type { ConversationState, FlowEvent } from './engine/types.ts';

/**
 * The state a conversation waits in: the one its `awaiting` names, else its current state; none
 * once it ended or before its first turn. The impact count of the admin API uses the same rule.
 */
export function waitingState(state: ConversationState): string | undefined {
  if (state.ended) return undefined;
  return state.awaiting?.state ?? state.state ?? undefined;
}

/** The state `state` waits in when `flow` does not have it; undefined otherwise. */
export function removedState(flow: Flow, state: ConversationState): string | undefined {
  const name = waitingState(state);
  return name !== undefined && !Object.hasOwn(flow.states, name) ? name : undefined;
}

/** A conversation about to start over: no state, no variables, its chosen language kept. */
export function startOver(state: ConversationState): ConversationState {
  return {
    state: null,
    vars: {},
    ...(state.language === undefined ? {} : { language: state.language }),
  };
}

/**
 * Writes the transcript note of a restart, once per turn: a redelivered turn finds it written
 * (the outbound uniqueness of conversation, turn and seq).
 */
export async function recordRestartNote(
  db: Knex,
  input: {
    conversationId: string;
    turnId: string;
    removedState: string;
    flowVersion: number | null;
    start: string;
  },
): Promise<void> {
  const version =
    input.flowVersion === null ? 'the current flow' : `flow version ${input.flowVersion}`;
  const body = {
    text: `The conversation was waiting in state "${input.removedState}", which ${version} does not have; it restarted at "${input.start}" with its variables cleared.`,
    removed_state: input.removedState,
    flow_version: input.flowVersion,
  };
  await db.raw(
    `insert into messages (conversation_id, direction, turn_id, seq, message_type, body, status)
     values (?, 'out', ?, 'note', 'note', ?::jsonb, 'note')
     on conflict (conversation_id, turn_id, seq) where direction = 'out' do nothing`,
    [input.conversationId, input.turnId, JSON.stringify(body)],
  );
}

/**
 * The state and event a turn runs with: unchanged, or, when the conversation waits in a state
 * `flow` does not have, a fresh start (the note written first). An answer to an HTTP or knowledge
 * step of the removed state is dropped and the conversation starts over at once, so the user is
 * not left waiting for it.
 */
export async function restartIfRemoved(
  db: Knex,
  turn: {
    bot: BotRecord;
    flow: Flow;
    state: ConversationState;
    event: FlowEvent;
    conversationId: string;
    turnId: string;
  },
  context: Pick<MessageContext, 'log'>,
): Promise<{ state: ConversationState; event: FlowEvent }> {
  const { bot, flow, state, event, conversationId, turnId } = turn;
  const removed = removedState(flow, state);
  if (removed === undefined) return { state, event };
  const flowVersion = bot.flowVersion ?? null;
  await recordRestartNote(db, {
    conversationId,
    turnId,
    removedState: removed,
    flowVersion,
    start: flow.start,
  });
  context.log.info(
    { removedState: removed, flowVersion },
    'the conversation waited in a state the current flow does not have; it starts over',
  );
  return {
    state: startOver(state),
    event: event.type === 'effect_result' ? { type: 'reset' } : event,
  };
}

/**
 * How a turn meets a handoff (docs/handoff.md, "How a handoff runs (flow)"): while a person has
 * the conversation nothing but the end of that handoff reaches the engine; an end is checked
 * against its row before the engine runs it.
 */
import type { HandoffEvent } from '../shared/events/types.ts';
import type { Knex } from '../shared/db.ts';
import type { ConversationState, HandoffAction, HandoffEndEvent } from './engine/types.ts';
import { readHandoff, type HandoffEnd } from './handoff-store.ts';

/** The `handoff` field of a flow topic message of intent `handoff`. */
export interface HandoffMessage {
  id: string;
  action: HandoffAction;
  /** The state a return resumes at. */
  state?: string;
  /**
   * Who ends it (the agent's actor, up to 320 characters), recorded as the row's `ended_by`;
   * without it, the message's `source` (flow, for a timeout).
   */
  by?: string;
}

/**
 * What a turn does: run as usual (no handoff), stay quiet (a person has the conversation, or the
 * message ends a handoff that is not open any more), or end the handoff.
 */
export type HandoffGate =
  | { kind: 'run' }
  | { kind: 'quiet'; why: string }
  | { kind: 'end'; event: HandoffEndEvent; end: HandoffEnd; queue: string | null };

export async function handoffGate(
  db: Knex,
  input: { intent: string; source: string; handoff?: HandoffMessage },
  state: ConversationState,
): Promise<HandoffGate> {
  if (input.intent !== 'handoff') {
    return state.handoff
      ? { kind: 'quiet', why: 'a person has the conversation' }
      : { kind: 'run' };
  }
  const message = input.handoff;
  if (!message) return { kind: 'quiet', why: 'a handoff message without its handoff' };
  if (state.handoff?.id !== message.id) {
    return { kind: 'quiet', why: 'the handoff is not the conversation’s open one' };
  }
  const row = await readHandoff(db, message.id);
  const open =
    row?.status === 'waiting' || (row?.status === 'claimed' && message.action !== 'timeout');
  if (!row || !open) {
    return { kind: 'quiet', why: `the handoff is ${row ? row.status : 'gone'}` };
  }
  const target =
    message.action === 'return'
      ? message.state
      : message.action === 'timeout'
        ? (row.fallback_state ?? undefined)
        : undefined;
  return {
    kind: 'end',
    event: {
      type: 'handoff_end',
      id: message.id,
      action: message.action,
      ...(target === undefined ? {} : { state: target }),
    },
    end: {
      id: message.id,
      action: message.action,
      endedBy: message.by ?? input.source,
      ...(message.action === 'return' && message.state ? { returnState: message.state } : {}),
    },
    queue: row.queue,
  };
}

/** The live event of a handoff that opened or ended. */
export function handoffEvent(
  ids: { appId: string; conversationId: string; handoffId: string },
  status: HandoffEvent['status'],
  queue: string | null | undefined,
): HandoffEvent {
  return {
    app_id: ids.appId,
    conversation_id: ids.conversationId,
    handoff_id: ids.handoffId,
    status,
    queue: queue ?? null,
    at: new Date().toISOString(),
  };
}

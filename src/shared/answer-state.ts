/**
 * The state a message's answer goes to (`flow_state`; docs/outbound.md, "The answer goes to a
 * state"): a reminder asks "Reply YES to confirm", and the user's YES reaches the flow state that
 * waits for it. flow moves the conversation there on a `move` message, published before the
 * message itself, in the chat's order, so the answer cannot overtake it.
 */
import {
  chatOrderingKey,
  conversationRefOfRow,
  type ConversationRefRow,
} from './conversation-ref.ts';
import { BotwireError } from './errors.ts';
import { statesOf } from './flows/flow-changes.ts';

/**
 * Checks that the bot's published `flow` has `state` and that it waits for an answer.
 * @throws BW_ERR_UNKNOWN_STATE; nothing is sent
 */
export function checkAnswerState(flow: unknown, state: string): void {
  const def = statesOf(flow)[state] as { wait?: unknown } | undefined;
  if (def?.wait) return;
  const why = def ? 'has no wait: no answer can go there' : 'is not in the bot’s published flow';
  throw new BotwireError('BW_ERR_UNKNOWN_STATE', `state "${state}" ${why}`, {
    details: { problems: [{ path: '/flow_state', message: why }] },
  });
}

/** The `flow` message that makes conversation `to` wait at `state`, under `turnId`. */
export function moveTo(
  to: ConversationRefRow,
  turnId: string,
  state: string,
): Record<string, unknown> {
  return {
    source: 'api',
    turn_id: turnId,
    ordering_key: chatOrderingKey(to.app_id, to.chat_id),
    intent: 'move',
    conversation: conversationRefOfRow(to),
    move: { state },
  };
}

/**
 * What a turn publishes: the bot's messages (to `language`, or straight to `channel` when no
 * language work is configured) and a knowledge question (to `retriver`). The outbox is stored with
 * the state, so a redelivered turn publishes the same again.
 */
import type { Outgoing } from '../shared/bus/producer.ts';
import { botOutputForChannel } from '../shared/languages/pass-through.ts';
import { mediaMessage } from '../shared/media-message.ts';
import type { ConversationRef, InternalMessage } from '../shared/messages.ts';
import type { Effect, OutMessage } from './engine/types.ts';

/** Where a turn's messages go and what they carry besides the messages themselves. */
export interface OutboxTurn {
  turnId: string;
  orderingKey: string;
  ref: ConversationRef;
  /** Send straight to `channel` (LANGUAGE_HOP=when_needed, no providers). */
  skipLanguage?: boolean;
  /** The user spoke: ask `language` to answer with voice. */
  voice?: boolean;
}

/** The engine's message shapes as internal messages. */
export function toInternal(message: OutMessage): InternalMessage {
  switch (message.message_type) {
    case 'text':
      return message;
    case 'button':
      return { message_type: 'button', text: message.text, buttons: message.buttons };
    case 'option_list':
      return {
        message_type: 'option_list',
        text: message.text,
        button_text: message.list.button,
        sections: message.list.sections,
      };
    case 'image':
    case 'document':
      return mediaMessage(message);
  }
}

/** The messages and the knowledge question of a turn, as topic messages. */
export function buildOutbox(
  turn: OutboxTurn,
  outputs: OutMessage[],
  pending: Extract<Effect, { kind: 'retrieve' }> | undefined,
): Outgoing[] {
  const { turnId, orderingKey, ref } = turn;
  const outbox: Outgoing[] = [];
  if (outputs.length > 0 && turn.skipLanguage) {
    outbox.push({
      topic: 'channel',
      message: botOutputForChannel(
        { source: 'flow', turn_id: turnId, ordering_key: orderingKey },
        ref,
        outputs.map(toInternal),
      ),
    });
  } else if (outputs.length > 0) {
    outbox.push({
      topic: 'language',
      message: {
        source: 'flow',
        turn_id: turnId,
        ordering_key: orderingKey,
        intent: 'language_out',
        conversation: ref,
        messages: outputs.map(toInternal),
        ...(turn.voice ? { reply_with_voice: true } : {}),
      },
    });
  }
  if (pending) {
    outbox.push({
      topic: 'retriver',
      message: {
        source: 'flow',
        turn_id: pending.request_id,
        ordering_key: orderingKey,
        collection_name: pending.collection,
        query: pending.query,
        k: pending.k,
        reply_to: {
          topic: 'flow',
          request_id: pending.request_id,
          conversation: ref,
          ordering_key: orderingKey,
        },
      },
    });
  }
  return outbox;
}

/**
 * A message to a user as the api sends it, from an agent's reply or the bot writing first
 * (schemas/http/outbound-message.json; docs/outbound.md): checked against the platform's rules
 * for this conversation, then made the internal message channel sends. On WhatsApp, free-form
 * messages only within 24 hours of the user's last message; an approved template at any time,
 * its parameters checked first. Other platforms have no templates and no window.
 */
import type { Knex } from '../../shared/db.ts';
import {
  chatOrderingKey,
  conversationRefOfRow,
  type ConversationRefRow,
} from '../../shared/conversation-ref.ts';
import { BotwireError } from '../../shared/errors.ts';
import { mediaMessage, type OutgoingMedia } from '../../shared/media-message.ts';
import type { InternalMessage } from '../../shared/messages.ts';
import { checkedTemplate, type TemplateParametersInput } from './templates.ts';
import { whatsappWindow } from '../../shared/whatsapp-window.ts';
import type { BotDirectory } from '../../shared/bots/directory.ts';
import type { ChannelRecord } from '../../shared/bots/types.ts';
import { messagingLimitOf, type MessagingLimit } from '../../shared/whatsapp-messaging-limit.ts';

/** The message as a request gives it (schemas/http/outbound-message.json). */
export type OutboundMessage =
  | { message_type: 'text'; text: string }
  | { message_type: 'button'; text: string; buttons: { id: string; title: string }[] }
  | OutgoingMedia
  | {
      message_type: 'template';
      name: string;
      language: string;
      parameters?: TemplateParametersInput;
    };

/** The conversation a message goes to, as far as the rules need it. */
export interface Destination {
  channel_id: string;
  channel_type: string;
  /** When the user last wrote; null if never. */
  last_inbound_at: Date | null;
}

/** @throws BW_ERR_WINDOW_CLOSED when the user last wrote more than 24 hours ago, or never */
function refuseOutsideWindow(to: Destination): void {
  const window = whatsappWindow(to);
  if (!window || window.open) return;
  throw new BotwireError(
    'BW_ERR_WINDOW_CLOSED',
    "the user's 24-hour WhatsApp window is closed: only an approved template may be sent",
    {
      details: {
        last_inbound_at: to.last_inbound_at?.toISOString() ?? null,
        closed_at: window.closes_at,
      },
    },
  );
}

/**
 * The internal message for `message` on channel `to`: a template checked against its definition
 * (WhatsApp only). The 24-hour window is not judged here (`internalOf` does, per recipient).
 * @throws BW_ERR_TEMPLATE; nothing is sent
 */
export async function checkedMessage(
  db: Knex,
  to: Pick<Destination, 'channel_id' | 'channel_type'>,
  message: OutboundMessage,
): Promise<InternalMessage> {
  switch (message.message_type) {
    case 'template': {
      if (to.channel_type !== 'whatsapp') {
        throw new BotwireError(
          'BW_ERR_TEMPLATE',
          `templates are WhatsApp's; on ${to.channel_type} send the message itself`,
          { details: { channel_type: to.channel_type } },
        );
      }
      const { parameters, text } = await checkedTemplate(db, to.channel_id, message);
      return {
        message_type: 'template',
        name: message.name,
        language: message.language,
        parameters,
        text,
      };
    }
    case 'text':
    case 'button':
      return message;
    case 'image':
    case 'document':
      return mediaMessage(message);
  }
}

/**
 * The internal message for `message` to `to`, once the platform's rules allow it.
 * @throws BW_ERR_WINDOW_CLOSED, BW_ERR_TEMPLATE; nothing is sent
 */
export async function internalOf(
  db: Knex,
  to: Destination,
  message: OutboundMessage,
): Promise<InternalMessage> {
  if (message.message_type !== 'template') refuseOutsideWindow(to);
  return checkedMessage(db, to, message);
}

/** Gives back room taken in a number's messaging limit: nothing was sent after all. */
export type GiveBack = () => Promise<void>;

/**
 * Takes room in WhatsApp channel `channel`'s messaging limit for starting a conversation with
 * `chatId` (docs/outbound.md, "The daily messaging limit"); resolves to what gives it back.
 * @throws BW_ERR_MESSAGING_LIMIT when the number has no room; nothing is sent
 */
export async function takeRoom(
  messagingLimit: MessagingLimit,
  channel: ChannelRecord,
  chatId: string,
): Promise<GiveBack> {
  if (channel.secrets.type !== 'whatsapp') return async () => {};
  const details = channel.secrets.details;
  const limit = messagingLimitOf(details);
  const { waitMs, taken } = await messagingLimit.take(details.phone_number_id, chatId, limit);
  if (waitMs > 0) {
    throw new BotwireError(
      'BW_ERR_MESSAGING_LIMIT',
      `this WhatsApp number started conversations with ${limit} users in the last 24 hours, its messaging limit: a template to a user whose window is closed can go once there is room`,
      { details: { limit, retry_at: new Date(Date.now() + waitMs).toISOString() } },
    );
  }
  return taken
    ? () => messagingLimit.release(details.phone_number_id, chatId).catch(() => {})
    : async () => {};
}

/**
 * Takes room in the WhatsApp number's messaging limit when `message` starts a conversation with
 * `to`: a template to a user whose 24-hour window is closed. Other messages, and other
 * platforms, take none.
 * @throws BW_ERR_MESSAGING_LIMIT when the number has no room; nothing is sent
 */
export async function takeConversationStart(
  deps: { directory: BotDirectory; messagingLimit: MessagingLimit },
  to: Destination & { app_id: string; chat_id: string },
  message: InternalMessage,
): Promise<GiveBack> {
  const none = async () => {};
  if (message.message_type !== 'template') return none;
  const window = whatsappWindow(to);
  if (!window || window.open) return none;
  const bot = await deps.directory.byAppId(to.app_id);
  const channel = bot?.channels.find((c) => c.id === to.channel_id);
  return channel ? takeRoom(deps.messagingLimit, channel, to.chat_id) : none;
}

/**
 * The `channel` message that sends `messages` to the conversation `to` under `turnId` (channel
 * records and sends each call of a turn once), written by `sentBy`, in order with the user's
 * messages (the chat's ordering key).
 */
export function channelOutTo(
  to: ConversationRefRow,
  turnId: string,
  sentBy: string,
  messages: InternalMessage[],
): Record<string, unknown> {
  return {
    source: 'api',
    turn_id: turnId,
    ordering_key: chatOrderingKey(to.app_id, to.chat_id),
    intent: 'channel_out',
    sent_by: sentBy,
    bot_output: { conversation: conversationRefOfRow(to), messages },
  };
}

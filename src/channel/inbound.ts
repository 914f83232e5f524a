/**
 * Platform payloads (as the edge published them on the `channel` topic) turned into internal
 * messages. Pure functions: no I/O.
 */
import type { InternalMessage } from '../shared/messages.ts';

/** One user message, normalised. */
export interface Inbound {
  /** The platform user id (Telegram user id, WhatsApp wa_id). */
  userId: string;
  firstName?: string;
  lastName?: string;
  /** The language the platform reports for the user, if any. */
  languageHint?: string;
  /** The platform chat: where replies go. */
  chatId: string;
  /** Unique per channel: what makes a redelivered message recognisable. */
  platformMessageId: string;
  message: InternalMessage;
  /** Telegram button press: must be answered with answerCallbackQuery. */
  callbackQueryId?: string;
}

interface TelegramUser {
  id: number;
  first_name?: string;
  last_name?: string;
  language_code?: string;
}

interface TelegramMessage {
  message_id: number;
  chat: { id: number };
  from?: TelegramUser;
  text?: string;
  caption?: string;
  voice?: { file_id: string; mime_type?: string };
  audio?: { file_id: string; mime_type?: string };
  photo?: { file_id: string; width?: number }[];
  document?: { file_id: string; mime_type?: string; file_name?: string };
  location?: { latitude: number; longitude: number };
}

export interface TelegramUpdate {
  update_id: number;
  message?: TelegramMessage;
  edited_message?: TelegramMessage;
  callback_query?: { id: string; from: TelegramUser; data?: string; message?: TelegramMessage };
}

function telegramContent(m: TelegramMessage): InternalMessage | undefined {
  const caption = m.caption ? { caption: m.caption } : {};
  if (typeof m.text === 'string') {
    if (/^\/start(@\w+)?(\s|$)/.test(m.text)) return { message_type: 'dialog', event: 'start' };
    return { message_type: 'text', text: m.text };
  }
  const voice = m.voice ?? m.audio;
  if (voice)
    return {
      message_type: 'audio',
      media: {
        platform: 'telegram',
        file_id: voice.file_id,
        ...(voice.mime_type ? { mime_type: voice.mime_type } : {}),
      },
    };
  if (m.photo && m.photo.length > 0) {
    const largest = m.photo[m.photo.length - 1]!;
    return {
      message_type: 'image',
      media: { platform: 'telegram', file_id: largest.file_id },
      ...caption,
    };
  }
  if (m.document) {
    return {
      message_type: 'document',
      media: {
        platform: 'telegram',
        file_id: m.document.file_id,
        ...(m.document.mime_type ? { mime_type: m.document.mime_type } : {}),
      },
      ...(m.document.file_name ? { filename: m.document.file_name } : {}),
      ...caption,
    };
  }
  if (m.location)
    return {
      message_type: 'location',
      latitude: m.location.latitude,
      longitude: m.location.longitude,
    };
  return undefined;
}

function person(
  user: TelegramUser | undefined,
): Pick<Inbound, 'firstName' | 'lastName' | 'languageHint'> {
  return {
    ...(user?.first_name ? { firstName: user.first_name } : {}),
    ...(user?.last_name ? { lastName: user.last_name } : {}),
    ...(user?.language_code ? { languageHint: user.language_code } : {}),
  };
}

/** A Telegram update as an inbound message; undefined for content botwire does not handle (stickers, polls). */
export function fromTelegram(update: TelegramUpdate): Inbound | undefined {
  const query = update.callback_query;
  if (query) {
    const chatId = String(query.message?.chat.id ?? query.from.id);
    return {
      userId: String(query.from.id),
      ...person(query.from),
      chatId,
      platformMessageId: `callback:${query.id}`,
      message: { message_type: 'interactive_reply', choice_id: query.data ?? '' },
      callbackQueryId: query.id,
    };
  }
  const m = update.message ?? update.edited_message;
  if (!m) return undefined;
  const message = telegramContent(m);
  if (!message) return undefined;
  const edited = update.edited_message ? `:edit:${update.update_id}` : '';
  return {
    userId: String(m.from?.id ?? m.chat.id),
    ...person(m.from),
    chatId: String(m.chat.id),
    platformMessageId: `${m.chat.id}:${m.message_id}${edited}`,
    message,
  };
}

interface WhatsAppReply {
  id: string;
  title?: string;
}

interface WhatsAppMedia {
  id: string;
  mime_type?: string;
  caption?: string;
  filename?: string;
}

export interface WhatsAppInput {
  contact?: { wa_id: string; profile?: { name?: string } };
  message: {
    id: string;
    from: string;
    type: string;
    text?: { body: string };
    interactive?: { type: string; button_reply?: WhatsAppReply; list_reply?: WhatsAppReply };
    button?: { payload?: string; text?: string };
    image?: WhatsAppMedia;
    audio?: WhatsAppMedia;
    document?: WhatsAppMedia;
    location?: { latitude: number; longitude: number };
  };
}

function media(item: WhatsAppMedia): {
  platform: 'whatsapp';
  media_id: string;
  mime_type?: string;
} {
  return {
    platform: 'whatsapp',
    media_id: item.id,
    ...(item.mime_type ? { mime_type: item.mime_type } : {}),
  };
}

function whatsappContent(m: WhatsAppInput['message']): InternalMessage | undefined {
  switch (m.type) {
    case 'text':
      return m.text ? { message_type: 'text', text: m.text.body } : undefined;
    case 'interactive': {
      const reply = m.interactive?.button_reply ?? m.interactive?.list_reply;
      return reply
        ? {
            message_type: 'interactive_reply',
            choice_id: reply.id,
            ...(reply.title ? { title: reply.title } : {}),
          }
        : undefined;
    }
    case 'button':
      // A quick-reply button of a template message.
      return m.button
        ? {
            message_type: 'interactive_reply',
            choice_id: m.button.payload ?? m.button.text ?? '',
            ...(m.button.text ? { title: m.button.text } : {}),
          }
        : undefined;
    case 'image':
      return m.image
        ? {
            message_type: 'image',
            media: media(m.image),
            ...(m.image.caption ? { caption: m.image.caption } : {}),
          }
        : undefined;
    case 'audio':
      return m.audio ? { message_type: 'audio', media: media(m.audio) } : undefined;
    case 'document':
      return m.document
        ? {
            message_type: 'document',
            media: media(m.document),
            ...(m.document.caption ? { caption: m.document.caption } : {}),
            ...(m.document.filename ? { filename: m.document.filename } : {}),
          }
        : undefined;
    case 'location':
      return m.location
        ? {
            message_type: 'location',
            latitude: m.location.latitude,
            longitude: m.location.longitude,
          }
        : undefined;
    default:
      return undefined;
  }
}

/** A WhatsApp message as an inbound message; undefined for content botwire does not handle (stickers, reactions). */
export function fromWhatsApp(input: WhatsAppInput): Inbound | undefined {
  const message = whatsappContent(input.message);
  if (!message) return undefined;
  const [firstName, ...rest] = (input.contact?.profile?.name ?? '').trim().split(/\s+/);
  return {
    userId: input.message.from,
    ...(firstName ? { firstName } : {}),
    ...(rest.length > 0 ? { lastName: rest.join(' ') } : {}),
    chatId: input.message.from,
    platformMessageId: input.message.id,
    message,
  };
}

/** What the edge publishes for a web visitor's message (`POST /v2/callback/web/<app_id>`). */
export interface WebInput {
  visitor_id: string;
  client_message_id: string;
  text?: string;
  button_id?: string;
  list_row_id?: string;
}

/**
 * A web visitor's message as an inbound message. The visitor is both the user and the chat; the
 * client message id is unique per visitor, so it is what recognises a resend.
 */
export function fromWeb(input: WebInput): Inbound | undefined {
  const choice = input.button_id ?? input.list_row_id;
  const message: InternalMessage | undefined =
    input.text !== undefined
      ? { message_type: 'text', text: input.text }
      : choice !== undefined
        ? { message_type: 'interactive_reply', choice_id: choice }
        : undefined;
  if (!message) return undefined;
  return {
    userId: input.visitor_id,
    chatId: input.visitor_id,
    platformMessageId: input.client_message_id,
    message,
  };
}

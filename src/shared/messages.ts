/**
 * The internal message: what flows between channel, language and flow, independent of platform.
 * Inbound kinds come from users; outbound kinds are what a bot can say. `schemas/topics/message.json`
 * is the same shape as a JSON Schema.
 */
import type { ChannelKind } from './bots/types.ts';

/**
 * A media file: as the platform knows it (downloaded only when needed, e.g. for speech-to-text),
 * at a URL, or inline: bytes botwire made itself (a synthesized voice reply), which the channel
 * uploads. Inline media rides in a stream entry, so it is kept small (`INLINE_MEDIA_MAX_BYTES`).
 */
export type MediaRef =
  | { platform: 'telegram'; file_id: string; mime_type?: string }
  | { platform: 'whatsapp'; media_id: string; mime_type?: string }
  | { url: string; mime_type?: string }
  | InlineMedia;

export interface InlineMedia {
  data_base64: string;
  mime_type: string;
}

/**
 * Most bytes of inline media in one message (1 MiB: two to four minutes of speech at the 32 to
 * 64 kbit/s of Ogg Opus). `schemas/parts/message.json` caps `data_base64` at the same size, base64-encoded.
 */
export const INLINE_MEDIA_MAX_BYTES = 1024 * 1024;

export function isInline(media: MediaRef): media is InlineMedia {
  return 'data_base64' in media;
}

export interface Button {
  id: string;
  title: string;
}

export interface ListRow {
  id: string;
  title: string;
  description?: string;
}

export interface ListSection {
  title?: string;
  rows: ListRow[];
}

export type InternalMessage =
  | { message_type: 'text'; text: string }
  /** `text`: the words spoken, when botwire made the audio (for transcripts). */
  | { message_type: 'audio'; media: MediaRef; text?: string }
  | { message_type: 'image'; media: MediaRef; caption?: string }
  | { message_type: 'document'; media: MediaRef; caption?: string; filename?: string }
  | { message_type: 'location'; latitude: number; longitude: number }
  /** A press of a button or a pick from a list the bot sent. */
  | { message_type: 'interactive_reply'; choice_id: string; title?: string }
  /** A conversation event rather than content: `/start` on Telegram, a reset. */
  | { message_type: 'dialog'; event: 'start' | 'reset' }
  /** Outbound: text with up to three reply buttons. */
  | { message_type: 'button'; text: string; buttons: Button[] }
  /** Outbound: text with a menu of rows in sections (up to ten rows). */
  | { message_type: 'option_list'; text: string; button_text: string; sections: ListSection[] }
  /**
   * Outbound, WhatsApp: an approved message template with its parameters (checked against its
   * definition before it is published); `text`, the body as the user reads it, for transcripts.
   */
  | {
      message_type: 'template';
      name: string;
      language: string;
      parameters: TemplateParameters;
      text: string;
    };

/**
 * A checked template's parameters, in order, by the component that holds their placeholders
 * (the request's shape, before the check: `TemplateParametersInput` in api/outbound/templates.ts).
 */
export interface TemplateParameters {
  header?: string[];
  body?: string[];
  /** The media of an image, video or document header: its kind, where WhatsApp fetches it, and a document's file name. */
  header_media?: { type: TemplateMediaType; link: string; filename?: string };
  /**
   * The ends of the addresses of the URL buttons that have a placeholder: `index` is the
   * button's place among all the template's buttons.
   */
  buttons?: { index: number; text: string }[];
}

/** The formats of a template header botwire sends media for. */
export type TemplateMediaType = 'image' | 'video' | 'document';

export type MessageType = InternalMessage['message_type'];

/** Who and where a message belongs to, carried on every pipeline message after `channel`. */
export interface ConversationRef {
  app_id: string;
  channel_id: string;
  channel_type: ChannelKind;
  conversation_id: string;
  /** The platform chat: Telegram chat id, WhatsApp wa_id, web visitor id. */
  chat_id: string;
  user_pid: string;
  /** The user's language (chosen or detected), BCP 47; absent until known. */
  user_language?: string;
  /** The bot's own language. */
  bot_language: string;
}

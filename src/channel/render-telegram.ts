/**
 * Internal messages as Telegram Bot API calls. Limits: text 4096 characters (longer text is sent
 * as several messages), captions 1024, callback data 64 bytes. Buttons and list rows become an
 * inline keyboard, one button per row. A voice note botwire made (inline bytes) is uploaded with
 * `sendVoice` as multipart.
 */
import { isInline, type InternalMessage } from '../shared/messages.ts';
import type { UploadFile } from './platform-api.ts';
import { split, truncate, truncateBytes } from './text-limits.ts';

export interface TelegramCall {
  method: 'sendMessage' | 'sendPhoto' | 'sendDocument' | 'sendVoice' | 'sendLocation';
  body: Record<string, unknown>;
  /** A file to upload with the call (multipart), under the field `name`: a voice note we made. */
  file?: UploadFile & { name: string };
}

const TEXT_MAX = 4096;
const CAPTION_MAX = 1024;
const CALLBACK_DATA_MAX_BYTES = 64;

function keyboard(options: { id: string; title: string }[]): Record<string, unknown> {
  return {
    inline_keyboard: options.map((o) => [
      { text: truncate(o.title, 64), callback_data: truncateBytes(o.id, CALLBACK_DATA_MAX_BYTES) },
    ]),
  };
}

/** The text messages for `text`, the keyboard (if any) on the last one. */
function textCalls(chatId: string, text: string, markup?: Record<string, unknown>): TelegramCall[] {
  const parts = split(text, TEXT_MAX);
  return parts.map((part, i) => ({
    method: 'sendMessage',
    body: {
      chat_id: chatId,
      text: part,
      ...(markup && i === parts.length - 1 ? { reply_markup: markup } : {}),
    },
  }));
}

function mediaUrl(message: { media: unknown }): string | undefined {
  const media = message.media as { url?: string; file_id?: string };
  return media.url ?? media.file_id;
}

export function renderTelegram(chatId: string, message: InternalMessage): TelegramCall[] {
  switch (message.message_type) {
    case 'text':
      return textCalls(chatId, message.text);
    case 'button':
      return textCalls(chatId, message.text, keyboard(message.buttons));
    case 'option_list':
      return textCalls(chatId, message.text, keyboard(message.sections.flatMap((s) => s.rows)));
    case 'image':
      return [
        {
          method: 'sendPhoto',
          body: {
            chat_id: chatId,
            photo: mediaUrl(message),
            ...(message.caption ? { caption: truncate(message.caption, CAPTION_MAX) } : {}),
          },
        },
      ];
    case 'document':
      return [
        {
          method: 'sendDocument',
          body: {
            chat_id: chatId,
            document: mediaUrl(message),
            ...(message.caption ? { caption: truncate(message.caption, CAPTION_MAX) } : {}),
          },
        },
      ];
    case 'audio':
      if (isInline(message.media)) {
        return [
          {
            method: 'sendVoice',
            body: { chat_id: chatId },
            file: {
              name: 'voice',
              data: new Uint8Array(Buffer.from(message.media.data_base64, 'base64')),
              mimeType: message.media.mime_type,
              filename: 'voice.ogg',
            },
          },
        ];
      }
      return [{ method: 'sendVoice', body: { chat_id: chatId, voice: mediaUrl(message) } }];
    case 'location':
      return [
        {
          method: 'sendLocation',
          body: { chat_id: chatId, latitude: message.latitude, longitude: message.longitude },
        },
      ];
    case 'template':
      // WhatsApp's alone; the api sends none elsewhere. Should one come, its words go as text.
      return textCalls(chatId, message.text);
    case 'interactive_reply':
    case 'dialog':
      return [];
  }
}

/**
 * Internal messages as web channel events (the part of a `WebEvent` that depends on the message).
 * The widget draws them, so there are no platform limits to fit: text is not split, buttons and
 * lists keep every option. Media must be a URL the visitor's browser can load; a voice note
 * botwire made is shown as its words. A message that cannot be shown on the web (media known
 * only to another platform) renders as nothing and is recorded as failed.
 */
import { isInline, type InternalMessage, type MediaRef } from '../shared/messages.ts';
import type { WebEvent } from '../shared/web/visitor-stream.ts';

export type WebContent = Omit<
  WebEvent,
  'id' | 'conversation_id' | 'direction' | 'turn_id' | 'created_at'
>;

function urlOf(media: MediaRef): string | undefined {
  return 'url' in media ? media.url : undefined;
}

/** The event content for `message`; undefined when the web cannot show it. */
export function renderWeb(message: InternalMessage): WebContent | undefined {
  switch (message.message_type) {
    case 'text':
      return { message_type: 'text', text: message.text };
    case 'button':
      return { message_type: 'button', text: message.text, buttons: message.buttons };
    case 'option_list':
      return {
        message_type: 'option_list',
        text: message.text,
        list: { button: message.button_text, sections: message.sections },
      };
    case 'image': {
      const url = urlOf(message.media);
      if (!url) return undefined;
      return {
        message_type: 'image',
        image: { url, ...(message.caption ? { caption: message.caption } : {}) },
      };
    }
    case 'document': {
      const url = urlOf(message.media);
      if (!url) return undefined;
      return {
        message_type: 'document',
        document: {
          url,
          ...(message.filename ? { filename: message.filename } : {}),
          ...(message.caption ? { caption: message.caption } : {}),
        },
      };
    }
    case 'audio': {
      // Inline audio is up to 1 MiB: too much for a capped stream that a new tab replays whole.
      if (message.text) return { message_type: 'text', text: message.text };
      const url = isInline(message.media) ? undefined : urlOf(message.media);
      return url ? { message_type: 'document', document: { url } } : undefined;
    }
    case 'template':
      // WhatsApp's alone; the api sends none elsewhere. Should one come, its words go as text.
      return { message_type: 'text', text: message.text };
    case 'location':
    case 'interactive_reply':
    case 'dialog':
      return undefined;
  }
}

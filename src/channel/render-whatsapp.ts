/**
 * Internal messages as WhatsApp Cloud API message bodies (POST /<phone_number_id>/messages).
 * Limits (Meta's): text 4096 characters (longer text becomes several messages); interactive body
 * 1024; reply buttons at most 3, titles 20; list button 20, at most 10 rows, row titles 24,
 * descriptions 72, section titles 24; captions 1024. More than three buttons become a list.
 */
import {
  isInline,
  type Button,
  type InternalMessage,
  type ListSection,
} from '../shared/messages.ts';
import type { UploadFile } from './platform-api.ts';
import { split, truncate } from './text-limits.ts';

export type WhatsAppBody = Record<string, unknown>;

/**
 * One message to send. With `upload` (a voice note botwire made), the file is uploaded first
 * (`POST /<phone_number_id>/media`) and the media id it gets is set as `body.audio.id`.
 */
export interface WhatsAppCall {
  body: WhatsAppBody;
  upload?: UploadFile;
}

const base = (to: string) => ({ messaging_product: 'whatsapp', recipient_type: 'individual', to });

function list(to: string, text: string, buttonText: string, sections: ListSection[]): WhatsAppBody {
  let budget = 10;
  const fitted = sections
    .map((section) => {
      const rows = section.rows.slice(0, Math.max(0, budget));
      budget -= rows.length;
      return {
        ...(section.title ? { title: truncate(section.title, 24) } : {}),
        rows: rows.map((r) => ({
          id: truncate(r.id, 200),
          title: truncate(r.title, 24),
          ...(r.description ? { description: truncate(r.description, 72) } : {}),
        })),
      };
    })
    .filter((section) => section.rows.length > 0);
  return {
    ...base(to),
    type: 'interactive',
    interactive: {
      type: 'list',
      body: { text: truncate(text, 4096) },
      action: { button: truncate(buttonText, 20), sections: fitted },
    },
  };
}

function buttons(to: string, text: string, options: Button[]): WhatsAppBody {
  if (options.length > 3) return list(to, text, 'Options', [{ rows: options }]);
  return {
    ...base(to),
    type: 'interactive',
    interactive: {
      type: 'button',
      body: { text: truncate(text, 1024) },
      action: {
        buttons: options.map((b) => ({
          type: 'reply',
          reply: { id: truncate(b.id, 256), title: truncate(b.title, 20) },
        })),
      },
    },
  };
}

function link(message: { media: unknown }): Record<string, string> {
  const media = message.media as { url?: string; media_id?: string };
  return media.url ? { link: media.url } : { id: media.media_id ?? '' };
}

export function renderWhatsApp(to: string, message: InternalMessage): WhatsAppCall[] {
  if (message.message_type === 'audio' && isInline(message.media)) {
    const upload = {
      data: new Uint8Array(Buffer.from(message.media.data_base64, 'base64')),
      mimeType: message.media.mime_type,
      filename: 'voice.ogg',
    };
    // `voice: true`: shown as a voice note (Ogg Opus only; a play icon up to 512 KB).
    return [{ body: { ...base(to), type: 'audio', audio: { voice: true } }, upload }];
  }
  return renderBodies(to, message).map((body) => ({ body }));
}

function renderBodies(to: string, message: InternalMessage): WhatsAppBody[] {
  switch (message.message_type) {
    case 'text':
      return split(message.text, 4096).map((body) => ({
        ...base(to),
        type: 'text',
        text: { body, preview_url: false },
      }));
    case 'button':
      return [buttons(to, message.text, message.buttons)];
    case 'option_list':
      return [list(to, message.text, message.button_text, message.sections)];
    case 'image':
      return [
        {
          ...base(to),
          type: 'image',
          image: {
            ...link(message),
            ...(message.caption ? { caption: truncate(message.caption, 1024) } : {}),
          },
        },
      ];
    case 'document':
      return [
        {
          ...base(to),
          type: 'document',
          document: {
            ...link(message),
            ...(message.caption ? { caption: truncate(message.caption, 1024) } : {}),
            ...(message.filename ? { filename: message.filename } : {}),
          },
        },
      ];
    case 'audio':
      return [{ ...base(to), type: 'audio', audio: link(message) }];
    case 'location':
      return [
        {
          ...base(to),
          type: 'location',
          location: { latitude: message.latitude, longitude: message.longitude },
        },
      ];
    case 'template':
      return [template(to, message)];
    case 'interactive_reply':
    case 'dialog':
      return [];
  }
}

/**
 * An approved template: its texts as text parameters of the components that hold them, a media
 * header's link as the header's parameter, and each URL button's address end as that button's.
 */
function template(
  to: string,
  message: Extract<InternalMessage, { message_type: 'template' }>,
): WhatsAppBody {
  const { header = [], body = [], header_media: media, buttons = [] } = message.parameters;
  const texts = (values: string[]) => values.map((text) => ({ type: 'text', text }));
  const headerParameters = media
    ? [
        {
          type: media.type,
          [media.type]: {
            link: media.link,
            ...(media.filename === undefined ? {} : { filename: media.filename }),
          },
        },
      ]
    : texts(header);
  const component = (type: string, parameters: unknown[]) =>
    parameters.length === 0 ? [] : [{ type, parameters }];
  const components = [
    ...component('header', headerParameters),
    ...component('body', texts(body)),
    ...buttons.map((b) => ({
      type: 'button',
      sub_type: 'url',
      index: String(b.index),
      parameters: texts([b.text]),
    })),
  ];
  return {
    ...base(to),
    type: 'template',
    template: {
      name: message.name,
      language: { code: message.language },
      ...(components.length > 0 ? { components } : {}),
    },
  };
}

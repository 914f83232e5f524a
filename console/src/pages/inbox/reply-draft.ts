/**
 * The reply box's draft and the message it stands for (plain TypeScript, unit tested): text,
 * text with buttons typed one title a line, or an image or a document by URL.
 */
import type { AgentMessage } from '../../api/types.ts';
import { buttonsFromLines } from './handoff-model.ts';

/** The kinds a draft is typed as; a WhatsApp template is chosen, not typed. */
export type Kind = Exclude<AgentMessage['message_type'], 'template'>;

export const KINDS: { kind: Kind; label: string }[] = [
  { kind: 'text', label: 'Text' },
  { kind: 'button', label: 'Text with buttons' },
  { kind: 'image', label: 'Image (URL)' },
  { kind: 'document', label: 'Document (URL)' },
];

export interface Draft {
  kind: Kind;
  text: string;
  buttons: string;
  url: string;
  caption: string;
  filename: string;
}

export const EMPTY: Draft = {
  kind: 'text',
  text: '',
  buttons: '',
  url: '',
  caption: '',
  filename: '',
};

/** The message a draft stands for, or undefined while it lacks what its kind needs. */
export function messageOf(d: Draft): AgentMessage | undefined {
  const text = d.text.trim();
  const caption = d.caption.trim() ? { caption: d.caption.trim() } : {};
  switch (d.kind) {
    case 'text':
      return text ? { message_type: 'text', text } : undefined;
    case 'button': {
      const buttons = buttonsFromLines(d.buttons);
      return text && buttons.length > 0 ? { message_type: 'button', text, buttons } : undefined;
    }
    case 'image':
      return d.url.trim() ? { message_type: 'image', url: d.url.trim(), ...caption } : undefined;
    case 'document':
      return d.url.trim()
        ? {
            message_type: 'document',
            url: d.url.trim(),
            ...caption,
            ...(d.filename.trim() ? { filename: d.filename.trim() } : {}),
          }
        : undefined;
  }
}

/**
 * Choosing a WhatsApp template to send (plain TypeScript, unit tested): the approved ones of the
 * conversation's channel, the body as the user will read it, and the message once every
 * placeholder has its text, a media header its link and every URL button to fill its address
 * end (docs/outbound.md, "WhatsApp templates").
 */
import type { AgentMessage, WhatsAppTemplate } from '../../api/types.ts';

/** What identifies a template: its name and language. */
export const templateKey = (t: Pick<WhatsAppTemplate, 'name' | 'language'>): string =>
  `${t.name}/${t.language}`;

/** The channel's approved templates, by name and language. */
export function approvedFor(templates: WhatsAppTemplate[], channelId: string): WhatsAppTemplate[] {
  return templates
    .filter((t) => t.channel_id === channelId && t.status === 'APPROVED')
    .sort((a, b) => templateKey(a).localeCompare(templateKey(b)));
}

/** The template's component of a type (HEADER, BODY, BUTTONS), as Meta describes it. */
function componentOf(
  template: WhatsAppTemplate,
  type: string,
): { text?: unknown; buttons?: unknown } | undefined {
  return template.components.find(
    (c) => String((c as { type?: unknown }).type).toUpperCase() === type,
  );
}

/** The text of a component (HEADER, BODY) of the template, if it has one. */
function textOf(template: WhatsAppTemplate, type: string): string | undefined {
  const text = componentOf(template, type)?.text;
  return typeof text === 'string' ? text : undefined;
}

/** The body as the user reads it: each `{{n}}` its text, or left as it is while empty. */
export function previewOf(template: WhatsAppTemplate, body: readonly string[]): string {
  return (textOf(template, 'BODY') ?? '').replace(/\{\{\s*(\d+)\s*\}\}/g, (whole, n: string) => {
    const value = body[Number(n) - 1]?.trim();
    return value ? value : whole;
  });
}

/** What a template takes, in words: "header 1, body 2, an image link, 1 button address". */
export function takesInWords(need: WhatsAppTemplate['parameters']): string {
  const parts = [
    need.header > 0 ? `header ${need.header}` : '',
    need.body > 0 ? `body ${need.body}` : '',
    need.header_media
      ? `${need.header_media === 'image' ? 'an' : 'a'} ${need.header_media} link`
      : '',
    need.buttons > 0 ? `${need.buttons} button address${need.buttons === 1 ? '' : 'es'}` : '',
  ].filter(Boolean);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

/** What an operator fills in for a template: texts, a media header's link, URL buttons' ends. */
export interface TemplateFills {
  header: string[];
  body: string[];
  /** The media header's link (https). */
  media: string;
  /** A document header's file name (optional). */
  filename: string;
  /** The address end of each URL button that ends in a placeholder, in order. */
  buttons: string[];
}

export const NO_FILLS: TemplateFills = {
  header: [],
  body: [],
  media: '',
  filename: '',
  buttons: [],
};

/** The URL buttons whose address ends in a placeholder: their title and address, in order. */
export function urlButtonsOf(template: WhatsAppTemplate): { text: string; url: string }[] {
  const listed = componentOf(template, 'BUTTONS')?.buttons;
  const buttons = Array.isArray(listed) ? listed : [];
  const str = (value: unknown): string => (typeof value === 'string' ? value : '');
  return buttons.flatMap((b: { type?: unknown; text?: unknown; url?: unknown }) =>
    str(b.type).toUpperCase() === 'URL' && /\{\{\s*1\s*\}\}/.test(str(b.url))
      ? [{ text: str(b.text), url: str(b.url) }]
      : [],
  );
}

/** The message to send, or undefined while something the template takes is missing. */
export function templateMessage(
  template: WhatsAppTemplate,
  fills: TemplateFills,
): AgentMessage | undefined {
  const filled = (values: readonly string[], count: number): string[] | undefined => {
    const texts = Array.from({ length: count }, (_, i) => values[i]?.trim() ?? '');
    return texts.every((t) => t !== '') ? texts : undefined;
  };
  const need = template.parameters;
  const h = filled(fills.header, need.header);
  const b = filled(fills.body, need.body);
  const ends = filled(fills.buttons, need.buttons);
  const link = fills.media.trim();
  const filename = fills.filename.trim();
  if (!h || !b || !ends || (need.header_media && !link)) return undefined;
  return {
    message_type: 'template',
    name: template.name,
    language: template.language,
    parameters: {
      ...(h.length > 0 ? { header: h } : {}),
      ...(b.length > 0 ? { body: b } : {}),
      ...(need.header_media
        ? {
            header_media: {
              link,
              ...(need.header_media === 'document' && filename ? { filename } : {}),
            },
          }
        : {}),
      ...(ends.length > 0 ? { buttons: ends.map((text) => ({ text })) } : {}),
    },
  };
}

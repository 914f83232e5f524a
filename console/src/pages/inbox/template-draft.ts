/**
 * Choosing a WhatsApp template to send (plain TypeScript, unit tested): the approved ones of the
 * conversation's channel, the body as the user will read it, and the message once every
 * placeholder has its text (docs/outbound.md, "WhatsApp templates").
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

/** The text of a component (HEADER, BODY) of the template, if it has one. */
function textOf(template: WhatsAppTemplate, type: string): string | undefined {
  const component = template.components.find(
    (c) => String((c as { type?: unknown }).type).toUpperCase() === type,
  ) as { text?: unknown } | undefined;
  return typeof component?.text === 'string' ? component.text : undefined;
}

/** The body as the user reads it: each `{{n}}` its text, or left as it is while empty. */
export function previewOf(template: WhatsAppTemplate, body: readonly string[]): string {
  return (textOf(template, 'BODY') ?? '').replace(/\{\{\s*(\d+)\s*\}\}/g, (whole, n: string) => {
    const value = body[Number(n) - 1]?.trim();
    return value ? value : whole;
  });
}

/** The message to send, or undefined while a placeholder has no text. */
export function templateMessage(
  template: WhatsAppTemplate,
  header: readonly string[],
  body: readonly string[],
): AgentMessage | undefined {
  const filled = (values: readonly string[], count: number): string[] | undefined => {
    const texts = Array.from({ length: count }, (_, i) => values[i]?.trim() ?? '');
    return texts.every((t) => t !== '') ? texts : undefined;
  };
  const h = filled(header, template.parameters.header);
  const b = filled(body, template.parameters.body);
  if (!h || !b) return undefined;
  return {
    message_type: 'template',
    name: template.name,
    language: template.language,
    parameters: { ...(h.length > 0 ? { header: h } : {}), ...(b.length > 0 ? { body: b } : {}) },
  };
}

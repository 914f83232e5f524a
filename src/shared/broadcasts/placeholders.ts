/**
 * A broadcast's message is one message for everyone, with `{{path}}` placeholders
 * (`shared/flows/template.ts`) that each recipient fills from their own values: their stored
 * variables, or the columns of an uploaded CSV (docs/outbound.md). The values are fixed when the
 * broadcast is made; each recipient's message is filled when it is sent.
 */
import type { InternalMessage, TemplateParameters } from '../messages.ts';
import { PLACEHOLDER } from '../flows/template.ts';

/** What WhatsApp refuses in a template parameter: a new line, a tab, more than four spaces. */
const UNSENDABLE_PARAMETER = /[\n\t]| {5}/;
/** A media header's link, filled: https and no white space. */
const MEDIA_LINK = /^https:\/\/\S+$/;

/** The texts of a message its placeholders may stand in. */
function textsOf(message: InternalMessage): string[] {
  switch (message.message_type) {
    case 'template':
      return [
        message.text,
        ...(message.parameters.header ?? []),
        ...(message.parameters.body ?? []),
        ...(message.parameters.header_media
          ? [message.parameters.header_media.link, message.parameters.header_media.filename ?? '']
          : []),
        ...(message.parameters.buttons ?? []).map((b) => b.text),
      ];
    case 'button':
      return [message.text, ...message.buttons.map((b) => b.title)];
    default:
      return [
        ...('text' in message && typeof message.text === 'string' ? [message.text] : []),
        ...('caption' in message && typeof message.caption === 'string' ? [message.caption] : []),
      ];
  }
}

/** The placeholder paths of a message, each once, in order of appearance. */
export function placeholderPaths(message: InternalMessage): string[] {
  const paths = new Set<string>();
  for (const text of textsOf(message)) {
    for (const match of text.matchAll(PLACEHOLDER)) if (match[1]) paths.add(match[1]);
  }
  return [...paths];
}

/**
 * The message for one recipient, its placeholders filled from `values` (path → text); a reason
 * instead when it cannot be sent to them: a value missing, or a template parameter WhatsApp
 * would refuse.
 */
export function personalize(
  message: InternalMessage,
  values: Readonly<Record<string, string>>,
): { message: InternalMessage } | { skip: 'missing_value' | 'invalid_value'; path: string } {
  for (const path of placeholderPaths(message)) {
    if (typeof values[path] !== 'string') return { skip: 'missing_value', path };
  }
  // A path is one key of `values` (`order.id` was looked up when the broadcast was made).
  const fill = (text: string) =>
    text.replace(PLACEHOLDER, (_m, path: string) => values[path] ?? '');
  switch (message.message_type) {
    case 'template': {
      const given = message.parameters;
      const media = given.header_media;
      const parameters: TemplateParameters = {
        ...(given.header ? { header: given.header.map(fill) } : {}),
        ...(given.body ? { body: given.body.map(fill) } : {}),
        ...(media
          ? {
              header_media: {
                ...media,
                link: fill(media.link),
                ...(media.filename === undefined ? {} : { filename: fill(media.filename) }),
              },
            }
          : {}),
        ...(given.buttons
          ? { buttons: given.buttons.map((b) => ({ ...b, text: fill(b.text) })) }
          : {}),
      };
      for (const [i, value] of [
        ...(parameters.header ?? []),
        ...(parameters.body ?? []),
      ].entries()) {
        if (UNSENDABLE_PARAMETER.test(value) || value === '')
          return { skip: 'invalid_value', path: String(i) };
      }
      // A link and an address end are one word: a value with a space would break them.
      if (parameters.header_media && !MEDIA_LINK.test(parameters.header_media.link))
        return { skip: 'invalid_value', path: 'header_media' };
      for (const [i, button] of (parameters.buttons ?? []).entries()) {
        if (!/^\S+$/.test(button.text)) return { skip: 'invalid_value', path: `buttons/${i}` };
      }
      return { message: { ...message, parameters, text: fill(message.text) } };
    }
    case 'button':
      return {
        message: {
          ...message,
          text: fill(message.text),
          buttons: message.buttons.map((b) => ({ ...b, title: fill(b.title) })),
        },
      };
    default: {
      const filled = { ...message } as Record<string, unknown>;
      for (const field of ['text', 'caption']) {
        const value = filled[field];
        if (typeof value === 'string') filled[field] = fill(value);
      }
      return { message: filled as unknown as InternalMessage };
    }
  }
}

/**
 * Turning actions into outbound messages and effects, with templates filled in.
 */
import { render, renderJson } from '../../shared/flows/template.ts';
import {
  DEFAULT_HTTP_TIMEOUT_MS,
  type AnswerFrom,
  type Button,
  type ChooseLanguage,
  type HttpCall,
  type OptionList,
  type Send,
} from '../../shared/flows/types.ts';
import { renderUrl } from '../../shared/flows/url-template.ts';
import type { Effect, OutMessage } from './types.ts';

type Scope = Readonly<Record<string, unknown>>;

/** Default `timeout_ms` of an HTTP action. */
export { DEFAULT_HTTP_TIMEOUT_MS };
/** Default `k` of an `answer_from` action. */
export const DEFAULT_K = 3;
/** Default label of the list button of a language choice with more than three options. */
export const DEFAULT_LANGUAGE_BUTTON = 'Language';
/** Platforms refuse interactive messages without a body; this stands in for a blank one. */
const BLANK_BODY = '…';

function renderButtons(buttons: readonly Button[], scope: Scope): Button[] {
  return buttons.map((b) => ({ id: b.id, title: render(b.title, scope) }));
}

function renderList(list: OptionList, scope: Scope): OptionList {
  return {
    button: render(list.button, scope),
    sections: list.sections.map((section) => ({
      ...(section.title === undefined ? {} : { title: render(section.title, scope) }),
      rows: section.rows.map((row) => ({
        id: row.id,
        title: render(row.title, scope),
        ...(row.description === undefined ? {} : { description: render(row.description, scope) }),
      })),
    })),
  };
}

/**
 * The text of a send as a message: with its buttons or list when it has them. A blank text
 * without options sends nothing; a blank text with options reads "…".
 */
export function textMessage(text: string, send: Send, scope: Scope): OutMessage | undefined {
  const body = text.trim() === '' ? BLANK_BODY : text;
  if (send.buttons) {
    return { message_type: 'button', text: body, buttons: renderButtons(send.buttons, scope) };
  }
  if (send.list) {
    return { message_type: 'option_list', text: body, list: renderList(send.list, scope) };
  }
  return text.trim() === '' ? undefined : { message_type: 'text', text };
}

/** The messages of one `send`: image, then document, then the text with its options. */
export function sendOutputs(send: Send, scope: Scope): OutMessage[] {
  const out: OutMessage[] = [];
  if (send.image) {
    const caption =
      send.image.caption === undefined ? undefined : render(send.image.caption, scope);
    out.push({
      message_type: 'image',
      url: render(send.image.url, scope),
      ...(caption ? { caption } : {}),
    });
  }
  if (send.document) {
    const doc = send.document;
    const caption = doc.caption === undefined ? undefined : render(doc.caption, scope);
    out.push({
      message_type: 'document',
      url: render(doc.url, scope),
      ...(doc.filename === undefined ? {} : { filename: doc.filename }),
      ...(caption ? { caption } : {}),
    });
  }
  if (send.text !== undefined) {
    const message = textMessage(render(send.text, scope), send, scope);
    if (message) out.push(message);
  }
  return out;
}

/** A language choice: buttons for up to three languages, a list for more. */
export function languagePrompt(choose: ChooseLanguage, scope: Scope): OutMessage {
  const options = choose.options.map((o) => ({ id: o.code, title: o.title }));
  const send: Send =
    options.length <= 3
      ? { buttons: options }
      : {
          list: { button: choose.button ?? DEFAULT_LANGUAGE_BUTTON, sections: [{ rows: options }] },
        };
  return textMessage(render(choose.prompt, scope), send, scope) as OutMessage;
}

/** Header values lose line breaks, so a variable cannot smuggle in another header. */
function headerValue(template: string, scope: Scope): string {
  return render(template, scope).replace(/[\r\n]+/g, ' ');
}

/**
 * The effect of an `http` action; placeholder values in the URL are percent-encoded per component
 * (`url-template.ts`). A URL that a value would bend (a `..` segment) comes out `refused`.
 */
export function httpEffect(http: HttpCall, scope: Scope, requestId: string): Effect {
  // fromEntries defines own properties, so even a header named __proto__ stays a plain key.
  const headers = Object.fromEntries(
    Object.entries(http.headers ?? {}).map(([name, template]) => [
      name,
      headerValue(template, scope),
    ]),
  );
  const url = renderUrl(http.url, scope);
  return {
    kind: 'http',
    request_id: requestId,
    method: http.method,
    url: url.ok ? url.url : http.url,
    ...(url.ok ? {} : { refused: url.reason }),
    headers,
    ...(http.body === undefined ? {} : { body: renderJson(http.body, scope) }),
    timeout_ms: http.timeout_ms ?? DEFAULT_HTTP_TIMEOUT_MS,
  };
}

/** The effect of an `answer_from` action: a query to the `retriver` topic. */
export function retrieveEffect(answer: AnswerFrom, scope: Scope, requestId: string): Effect {
  return {
    kind: 'retrieve',
    request_id: requestId,
    collection: answer.collection,
    query: render(answer.query, scope),
    k: answer.k ?? DEFAULT_K,
  };
}

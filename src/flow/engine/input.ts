/**
 * Reading user input: reset keywords, choices, and a `wait`'s validation (`expect`, `pattern`).
 */
import { render } from '../../shared/flows/template.ts';
import type { Expect, FlowState, Send, Wait } from '../../shared/flows/types.ts';
import type { InputEvent } from './types.ts';

/** One option the user may pick: a button, a list row or a language. */
export interface Choice {
  id: string;
  title: string;
}

export type InputCheck = { ok: true; value: unknown } | { ok: false };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const NUMBER = /^[+-]?(?:\d+(?:[.,]\d+)?|[.,]\d+)$/;
const PHONE_SEPARATORS = /[\s().-]/g;
const PHONE = /^\+?\d{6,15}$/;

const RETRY_TEXTS: Record<Expect, string> = {
  any: "Sorry, I didn't get that. Please try again.",
  text: 'Please answer with text.',
  number: 'Please answer with a number.',
  email: 'Please send a valid email address.',
  phone: 'Please send a valid phone number.',
  choice: 'Please choose one of the options.',
};

/** The retry prompt used when a wait has none. */
export function defaultRetryText(expect: Expect): string {
  return RETRY_TEXTS[expect];
}

/**
 * Whether `text` is a reset keyword: compared trimmed and case-insensitively; a keyword that is a
 * command (`/start`) also matches with arguments or a bot name (`/start promo`, `/start@my_bot`).
 */
export function isResetKeyword(text: string | undefined, keywords: readonly string[]): boolean {
  if (text === undefined) return false;
  const wanted = new Set(keywords.map((k) => k.trim().toLowerCase()));
  const said = text.trim().toLowerCase();
  if (wanted.has(said)) return true;
  if (!said.startsWith('/')) return false;
  const command = (said.split(/\s+/)[0] ?? '').split('@')[0] ?? '';
  return wanted.has(command);
}

/** Whether the whole text, trimmed and in any case, is one of the bot's handoff keywords. */
export function isHandoffKeyword(text: string | undefined, keywords: readonly string[]): boolean {
  if (text === undefined) return false;
  const said = text.trim().toLowerCase();
  return said !== '' && keywords.some((k) => k.trim().toLowerCase() === said);
}

/** The last send with buttons or a list among the state's actions: what a choice answers. */
export function optionsSendOf(state: FlowState): Send | undefined {
  const sends = (state.actions ?? []).flatMap((a) => ('send' in a ? [a.send] : []));
  return sends.filter((send) => send.buttons || send.list).pop();
}

/** The options of the state's options send, titles filled in. */
export function choicesOf(state: FlowState, vars: Readonly<Record<string, unknown>>): Choice[] {
  const last = optionsSendOf(state);
  if (!last) return [];
  const options = last.buttons ?? last.list?.sections.flatMap((s) => s.rows) ?? [];
  return options.map((o) => ({ id: o.id, title: render(o.title, vars) }));
}

/** The id of the option the user picked: a pressed id, or a typed id or title. */
export function matchChoice(event: InputEvent, choices: readonly Choice[]): string | undefined {
  if (event.choice_id !== undefined && choices.some((c) => c.id === event.choice_id)) {
    return event.choice_id;
  }
  const typed = event.text?.trim().toLowerCase();
  if (!typed) return undefined;
  return choices.find((c) => c.id.toLowerCase() === typed || c.title.toLowerCase() === typed)?.id;
}

function byExpect(expect: Expect, event: InputEvent, choices: readonly Choice[]): InputCheck {
  const text = event.text?.trim();
  switch (expect) {
    case 'any':
      return { ok: true, value: event.choice_id ?? text ?? event.raw ?? '' };
    case 'text':
      return text ? { ok: true, value: text } : { ok: false };
    case 'number':
      return text && NUMBER.test(text)
        ? { ok: true, value: Number(text.replace(',', '.')) }
        : { ok: false };
    case 'email':
      return text && text.length <= 254 && EMAIL.test(text)
        ? { ok: true, value: text }
        : { ok: false };
    case 'phone': {
      const compact = text?.replace(PHONE_SEPARATORS, '');
      return compact && PHONE.test(compact) ? { ok: true, value: compact } : { ok: false };
    }
    case 'choice': {
      const id = matchChoice(event, choices);
      return id === undefined ? { ok: false } : { ok: true, value: id };
    }
  }
}

/** Whether a wait's `pattern` accepts a trimmed text (RE2, `src/shared/flows/pattern.ts`). */
export type PatternTest = (pattern: string, text: string) => boolean;

/**
 * Checks an answer against a wait. The value stored is the trimmed text (`text`, `email`), a
 * number (`number`), the digits with an optional leading + (`phone`), the option id (`choice`),
 * or for `any` the choice id, else the text, else `raw`. A `pattern` tests the trimmed text.
 */
export function acceptInput(
  wait: Wait,
  event: InputEvent,
  choices: readonly Choice[],
  testPattern: PatternTest,
): InputCheck {
  const expect = wait.expect ?? 'any';
  const checked = byExpect(expect, event, choices);
  if (!checked.ok || wait.pattern === undefined || expect === 'choice') return checked;
  const text = event.text?.trim();
  if (text === undefined) return { ok: false };
  return testPattern(wait.pattern, text) ? checked : { ok: false };
}

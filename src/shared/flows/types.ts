/**
 * The declarative flow format (schemas/flow/flow.json), as TypeScript types. A value of type
 * `Flow` has passed `validateFlow`; see docs/flows.md for the meaning of each field.
 */

import type { Button, ListSection } from '../messages.ts';

/** A text with `{{var.path}}` placeholders, at most 4096 characters. */
export type Template = string;

// The flow's buttons and list rows are the internal message's (a press reports the button's id).
export type { Button, ListRow, ListSection } from '../messages.ts';

export interface OptionList {
  /** The label of the button that opens the list. */
  button: string;
  /** At most 10 rows in all sections together. */
  sections: ListSection[];
}

export interface Media {
  url: Template;
  caption?: Template;
}

export interface DocumentMedia extends Media {
  filename?: string;
}

/** What one `send` action puts out: media first, then the text (with its buttons or list). */
export interface Send {
  text?: Template;
  /** One to three buttons; needs `text`. */
  buttons?: Button[];
  /** Needs `text`; not together with `buttons`. */
  list?: OptionList;
  image?: Media;
  document?: DocumentMedia;
}

/** `timeout_ms` of an HTTP action that does not set it (milliseconds). */
export const DEFAULT_HTTP_TIMEOUT_MS = 5000;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpCall {
  method: HttpMethod;
  /** Starts with `http://` or `https://`; placeholder values are percent-encoded. */
  url: Template;
  headers?: Record<string, Template>;
  /** Any JSON; strings in it are templates. Not allowed with GET. */
  body?: unknown;
  /** @defaultValue 5000 (milliseconds, 100 to 30000) */
  timeout_ms?: number;
  /** The variable that receives the result (or `{ error }`). */
  store: string;
}

export interface AnswerFrom {
  collection: string;
  query: Template;
  /** @defaultValue 3 (passages, 1 to 10) */
  k?: number;
  /** @defaultValue "answer" */
  store?: string;
}

export interface LanguageOption {
  code: string;
  title: string;
}

export interface ChooseLanguage {
  prompt: Template;
  /** Label of the list button when there are more than three options. @defaultValue "Language" */
  button?: string;
  options: LanguageOption[];
}

/**
 * Hands the conversation to a person (docs/handoff.md): `message` is sent, the bot goes quiet
 * until an agent hands it back or closes it, and `fallback` runs when no agent claims it in time.
 */
export interface HandoffStep {
  message?: Template;
  /** The inbox queue it waits in; none by default. */
  queue?: string;
  /** The state entered when no agent claims it before the bot's handoff timeout. */
  fallback: string;
}

export type SetValue = Template | number | boolean | null;

export type Action =
  | { send: Send }
  | { set: Record<string, SetValue> }
  | { http: HttpCall }
  | { answer_from: AnswerFrom }
  | { choose_language: ChooseLanguage }
  | { handoff: HandoffStep };

export type Expect = 'text' | 'number' | 'email' | 'phone' | 'choice' | 'any';

export interface Wait {
  store: string;
  /** @defaultValue "any" */
  expect?: Expect;
  /** A JavaScript regular expression (compiled with the `u` flag) the text must match. */
  pattern?: string;
  retry_prompt?: Template;
  /** @defaultValue 2 */
  max_retries?: number;
  on_fail?: string;
}

/** The JSON Logic operators a condition may use; anything else is refused at validation. */
export const CONDITION_OPERATORS = [
  '==',
  '!=',
  '===',
  '!==',
  '>',
  '>=',
  '<',
  '<=',
  '!',
  '!!',
  'and',
  'or',
  'in',
  'var',
  'missing',
  'if',
  'cat',
  'substr',
] as const;

export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/** A JSON Logic expression over the whitelisted operators (a literal, a list, or `{op: args}`). */
export type Condition =
  string | number | boolean | null | Condition[] | { [op in ConditionOperator]?: Condition };

export interface Transition {
  /** Absent: always true. */
  when?: Condition;
  to: string;
}

export interface FlowState {
  actions?: Action[];
  wait?: Wait;
  next?: string;
  transitions?: Transition[];
  end?: true;
}

export interface Flow {
  version: 1;
  start: string;
  /** Texts that restart the conversation, compared trimmed and case-insensitively. */
  reset_keywords?: string[];
  /** The language the flow's texts are written in; the `language` component translates. */
  fallback_language?: string;
  states: Record<string, FlowState>;
}

/** Variable names the engine fills itself; a flow cannot `set` or `store` into them. */
export const RESERVED_VARS = ['input', 'language'] as const;

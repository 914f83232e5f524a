/**
 * The declarative flow format (schemas/flow/flow.json), as TypeScript types. A value of type
 * `Flow` has passed `validateFlow`; see docs/flows.md for the meaning of each field.
 */

import type { Button as MessageButton, ListRow as MessageListRow } from '../messages.ts';

/** A text with `{{var.path}}` placeholders, at most 4096 characters. */
export type Template = string;

/**
 * Phrases that mean an option, besides its title: free text close in meaning to one of them picks
 * the option (docs/flows.md, "Understanding free text"). They are never sent.
 */
export interface OptionExamples {
  /** 1 to 50 phrases of 1 to 200 characters. */
  examples?: string[];
}

// The flow's buttons and list rows are the internal message's (a press reports the button's id),
// plus the example phrases matched by meaning.
export type Button = MessageButton & OptionExamples;
export type ListRow = MessageListRow & OptionExamples;

export interface ListSection {
  title?: string;
  rows: ListRow[];
}

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

/** `timeout_ms` of an `llm` action that does not set it (milliseconds, the repair included). */
export const DEFAULT_LLM_TIMEOUT_MS = 10_000;
/** `max_tokens` of an `llm` action that does not set it (tokens). */
export const DEFAULT_LLM_MAX_TOKENS = 256;

/** `output` of an `llm` action: free text, or JSON valid against this JSON Schema. */
export type LlmOutput = 'text' | Record<string, unknown>;

/**
 * Asks the configured OpenAI-compatible chat API (docs/flows.md, "The llm step"). Values placed
 * in `prompt` reach the model as delimited data, never as instructions; `system` takes no
 * placeholders.
 */
export interface LlmCall {
  /** The operator's instructions (no placeholders). */
  system?: string;
  /** A template; each substituted value is sent inside a data block. */
  prompt: Template;
  /** @defaultValue "text" */
  output?: LlmOutput;
  /** The variable that receives the text or the parsed JSON (or `{ error, code }`). */
  store: string;
  /** @defaultValue `LLM_MODEL` */
  model?: string;
  /** @defaultValue 256 (tokens, 1 to 4096) */
  max_tokens?: number;
  /** @defaultValue 0.2 (0 to 2) */
  temperature?: number;
  /** @defaultValue 10000 (milliseconds, 500 to 60000), the repair attempt included */
  timeout_ms?: number;
}

export type SetValue = Template | number | boolean | null;

export type Action =
  | { send: Send }
  | { set: Record<string, SetValue> }
  | { http: HttpCall }
  | { answer_from: AnswerFrom }
  | { choose_language: ChooseLanguage }
  | { handoff: HandoffStep }
  | { llm: LlmCall };

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
  | string
  | number
  | boolean
  | null
  | Condition[]
  | { [op in ConditionOperator]?: Condition }
  /** True when the turn's input was understood as this intent (docs/flows.md). */
  | { intent: string };

/** What a global intent does from whatever state the conversation waits in. */
export type IntentGlobal = { to: string } | { handoff: { message?: Template; queue?: string } };

/**
 * A meaning the flow recognises in free text, from example phrases (docs/flows.md,
 * "Understanding free text"). Tested in conditions as `{"intent": name}`; a global one acts from
 * any wait.
 */
export interface Intent {
  name: string;
  /** 1 to 50 phrases of 1 to 200 characters. */
  examples: string[];
  /** For people (and an LLM); not matched. */
  description?: string;
  global?: IntentGlobal;
}

/** How free text is matched by meaning; the settings' defaults where absent. */
export interface Matching {
  /** Least similarity (cosine) the best option or intent needs. @defaultValue FLOW_MATCH_MIN_SCORE */
  min_score?: number;
  /** How far the best must be ahead of the second best. @defaultValue FLOW_MATCH_MARGIN */
  margin?: number;
  /**
   * Ask the LLM (`LLM_API_URL`) which option or intent a text means when the scores leave it
   * unclear, within the `llm` budgets and guardrails. @defaultValue false
   */
  llm?: boolean;
}

/** The bot's limits on `llm` steps (docs/flows.md, "Guardrails"). */
export interface LlmGuardrails {
  /** Tokens the bot may use a day (UTC), at most `FLOW_LLM_DAILY_TOKENS`. */
  daily_tokens?: number;
  /** Tokens one turn may use. @defaultValue FLOW_LLM_TURN_TOKENS */
  turn_tokens?: number;
  /** Phone numbers, emails and card numbers are masked before anything is sent. @defaultValue false */
  mask_pii?: boolean;
  /** What the answers must be about; an off-topic request or answer takes the error path. */
  topic?: string;
  /** Longest text answer kept (characters); longer ones are cut at a sentence or word. */
  max_answer_chars?: number;
}

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
  intents?: Intent[];
  matching?: Matching;
  llm?: LlmGuardrails;
  /** Where the console draws the states an operator placed; conversations never read it. */
  layout?: Record<string, { x: number; y: number }>;
}

/** Variable names the engine fills itself; a flow cannot `set` or `store` into them. */
export const RESERVED_VARS = ['input', 'language'] as const;

/**
 * The flow format as the editor sees it. The shapes are the server's own (type-only import, so
 * nothing of the server ships); a draft may be invalid, so readers in this folder check shapes
 * before trusting them.
 */
export type {
  Action,
  AnswerFrom,
  Button,
  ChooseLanguage,
  Condition,
  DocumentMedia,
  Expect,
  Flow,
  FlowState,
  HandoffStep,
  HttpCall,
  HttpMethod,
  Intent,
  IntentGlobal,
  ListRow,
  LlmCall,
  LlmGuardrails,
  LlmOutput,
  ListSection,
  Matching,
  Media,
  OptionList,
  Send,
  SetValue,
  Transition,
  Wait,
} from '../../../../src/shared/flows/types.ts';

/** The state and variable name rule of the format (docs/flows.md "Names"). */
export const NAME_PATTERN = /^(?!(?:__proto__|constructor|prototype)$)[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** A plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy of `value` without `keys` (so an unset optional field is absent, not `undefined`). */
export function omit<T extends object, K extends keyof T>(value: T, ...keys: K[]): Omit<T, K> {
  const copy: Partial<T> = { ...value };
  for (const key of keys) delete copy[key];
  return copy as Omit<T, K>;
}

/**
 * `value` with `key` set, or without it when `next` is undefined; undefined when nothing is left
 * (so an optional object of the flow is dropped rather than kept empty).
 */
export function withField<T extends object, K extends keyof T>(
  value: T,
  key: K,
  next: T[K] | undefined,
): T | undefined {
  const rest = omit(value, key);
  const changed = (next === undefined ? rest : { ...rest, [key]: next }) as T;
  return Object.keys(changed).length > 0 ? changed : undefined;
}

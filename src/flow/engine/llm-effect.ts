/**
 * The effect of an `llm` action. Its prompt is kept as parts: the template's own words, and each
 * placeholder's value as data, so whoever builds the request can delimit every value (the user's
 * words included) and never splice it into instructions (`src/flow/llm/prompt.ts`).
 */
import { lookup, meterOf, stringify } from '../../shared/flows/template.ts';
import {
  DEFAULT_LLM_MAX_TOKENS,
  DEFAULT_LLM_TIMEOUT_MS,
  type Flow,
  type LlmCall,
} from '../../shared/flows/types.ts';
import type { Effect, PromptPart } from './types.ts';

/** `temperature` of an `llm` action that sets none. */
export const DEFAULT_LLM_TEMPERATURE = 0.2;

const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;

/**
 * `template` as words and data: each placeholder becomes a data part with its value. Counted by
 * the meter of `vars`, when it has one, like every template of the turn (`render`).
 * @throws RenderBudgetError when that passes the turn's budget
 */
export function promptParts(
  template: string,
  vars: Readonly<Record<string, unknown>>,
): PromptPart[] {
  const meter = meterOf(vars);
  meter?.spend(template.length);
  const parts: PromptPart[] = [];
  let at = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const index = match.index ?? 0;
    if (index > at) parts.push({ text: template.slice(at, index) });
    const data = stringify(lookup(vars, match[1] ?? ''));
    meter?.spend(data.length);
    parts.push({ data, name: match[1] ?? '' });
    at = index + match[0].length;
  }
  if (at < template.length) parts.push({ text: template.slice(at) });
  return parts;
}

/** The effect of an `llm` action, with the flow's guardrails. */
export function llmEffect(
  llm: LlmCall,
  flow: Flow,
  scope: Readonly<Record<string, unknown>>,
  requestId: string,
): Effect {
  return {
    kind: 'llm',
    request_id: requestId,
    ...(llm.system === undefined ? {} : { system: llm.system }),
    prompt: promptParts(llm.prompt, scope),
    output: llm.output ?? 'text',
    ...(llm.model === undefined ? {} : { model: llm.model }),
    max_tokens: llm.max_tokens ?? DEFAULT_LLM_MAX_TOKENS,
    temperature: llm.temperature ?? DEFAULT_LLM_TEMPERATURE,
    timeout_ms: llm.timeout_ms ?? DEFAULT_LLM_TIMEOUT_MS,
    guardrails: flow.llm ?? {},
  };
}

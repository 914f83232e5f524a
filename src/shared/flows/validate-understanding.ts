/**
 * The checks of a flow's understanding parts that a schema cannot express: intents (unique names,
 * no phrase shared by two intents or two options, global targets that exist), `{"intent": name}`
 * conditions naming a declared intent, and `llm` steps (no placeholders in `system`, an output
 * schema that compiles, a `max_tokens` the flow's `llm.turn_tokens` leaves room for). Called by
 * `validateFlow`.
 */
import type { SchemaProblem } from '../schemas.ts';
import { outputSchema } from './llm-output.ts';
import {
  DEFAULT_LLM_MAX_TOKENS,
  type Condition,
  type Flow,
  type LlmCall,
  type Send,
} from './types.ts';

const PLACEHOLDER = /\{\{/;

const phrase = (text: string): string => text.trim().toLowerCase().replace(/\s+/g, ' ');

/** Intents: names unique, phrases not shared between intents, global targets that exist. */
export function checkIntents(flow: Flow, problems: SchemaProblem[]): void {
  const names = new Map<string, number>();
  const phrases = new Map<string, string>();
  (flow.intents ?? []).forEach((intent, i) => {
    const base = `/intents/${i}`;
    if (names.has(intent.name)) {
      problems.push({ path: `${base}/name`, message: 'repeats an earlier intent name' });
    }
    names.set(intent.name, i);
    intent.examples.forEach((example, j) => {
      const owner = phrases.get(phrase(example));
      if (owner !== undefined && owner !== intent.name) {
        problems.push({
          path: `${base}/examples/${j}`,
          message: `is also an example of intent "${owner}": it could never tell them apart`,
        });
      }
      phrases.set(phrase(example), intent.name);
    });
    const global = intent.global;
    if (global && 'to' in global && !Object.hasOwn(flow.states, global.to)) {
      problems.push({ path: `${base}/global/to`, message: `names no state ("${global.to}")` });
    }
  });
}

/** Options of one send: no phrase (title or example) means two of them. */
export function checkOptionExamples(send: Send, base: string, problems: SchemaProblem[]): void {
  const owners = new Map<string, string>();
  const options = [
    ...(send.buttons ?? []).map((b, j) => ({ option: b, path: `${base}/buttons/${j}` })),
    ...(send.list?.sections ?? []).flatMap((section, s) =>
      section.rows.map((row, r) => ({ option: row, path: `${base}/list/sections/${s}/rows/${r}` })),
    ),
  ];
  for (const { option, path } of options) {
    const texts = [option.title, ...(option.examples ?? [])];
    texts.forEach((text, k) => {
      const owner = owners.get(phrase(text));
      if (owner !== undefined && owner !== option.id) {
        problems.push({
          path: k === 0 ? `${path}/title` : `${path}/examples/${k - 1}`,
          message: `also means option "${owner}": it could never tell them apart`,
        });
      }
      owners.set(phrase(text), option.id);
    });
  }
}

/** Every `{"intent": name}` inside `condition`, with its JSON Pointer. */
function intentNames(condition: Condition | undefined, path: string): [string, string][] {
  if (condition === null || typeof condition !== 'object') return [];
  if (Array.isArray(condition)) {
    return condition.flatMap((c, i) => intentNames(c, `${path}/${i}`));
  }
  return Object.entries(condition).flatMap(([op, args]) =>
    op === 'intent' && typeof args === 'string'
      ? [[args, `${path}/intent`] as [string, string]]
      : intentNames(args, `${path}/${op}`),
  );
}

/** Conditions that test an intent the flow does not declare. */
export function checkIntentConditions(flow: Flow, problems: SchemaProblem[]): void {
  const declared = new Set((flow.intents ?? []).map((intent) => intent.name));
  for (const [name, state] of Object.entries(flow.states)) {
    state.transitions?.forEach((t, i) => {
      for (const [intent, path] of intentNames(t.when, `/states/${name}/transitions/${i}/when`)) {
        if (!declared.has(intent))
          problems.push({ path, message: `names no intent ("${intent}")` });
      }
    });
  }
}

/** An `llm` step: `system` without placeholders, an output schema that compiles. */
export function checkLlm(llm: LlmCall, base: string, problems: SchemaProblem[]): void {
  if (llm.system !== undefined && PLACEHOLDER.test(llm.system)) {
    problems.push({
      path: `${base}/system`,
      message:
        'takes no placeholders: values go in prompt, where they are sent as data, never as instructions',
    });
  }
  if (llm.output !== undefined && llm.output !== 'text') {
    const compiled = outputSchema(llm.output);
    if (!compiled.ok) problems.push({ path: `${base}/output`, message: compiled.message });
  }
}

/**
 * The flow's `llm.turn_tokens` above every step's `max_tokens`: a call is estimated at its
 * `max_tokens` plus its messages before it is made, so a step asking for as much as the turn may
 * spend would be refused every time (BW_ERR_FLOW_LLM_TURN_BUDGET).
 */
export function checkLlmTurnTokens(flow: Flow, problems: SchemaProblem[]): void {
  const turnTokens = flow.llm?.turn_tokens;
  if (turnTokens === undefined) return;
  for (const [name, state] of Object.entries(flow.states)) {
    (state.actions ?? []).forEach((action, i) => {
      if (!('llm' in action)) return;
      const maxTokens = action.llm.max_tokens ?? DEFAULT_LLM_MAX_TOKENS;
      if (maxTokens < turnTokens) return;
      problems.push({
        path: '/llm/turn_tokens',
        message: `must be above the max_tokens (${maxTokens}) of the llm step at /states/${name}/actions/${i}: a call needs its max_tokens and its prompt, so that step could never run`,
      });
    });
  }
}

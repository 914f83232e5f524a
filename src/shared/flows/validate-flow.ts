/**
 * Validation of a bot's flow: the JSON Schema `flow/flow` first, then the checks a schema cannot
 * express (names that must exist, regular expressions that must compile, dead ends). Every
 * problem carries the JSON Pointer of the offending value, e.g. `/states/menu/transitions/1/to`.
 */
import { compilePattern } from './pattern.ts';
import { BotwireError } from '../errors.ts';
import type { SchemaProblem, SchemaRegistry } from '../schemas.ts';
import { budgetWarnings, DEFAULT_FLOW_BUDGET, type FlowBudget } from './flow-budget.ts';
import { RESERVED_VARS, type Action, type Flow, type FlowState, type Send } from './types.ts';
import {
  checkIntentConditions,
  checkIntents,
  checkLlm,
  checkLlmTurnTokens,
  checkOptionExamples,
} from './validate-understanding.ts';

/** The name of the flow's schema in the SchemaRegistry. */
export const FLOW_SCHEMA = 'flow/flow';

export type FlowProblem = SchemaProblem;

/**
 * `warnings` never refuse a flow; they are given beside the problems of a refused one too, when
 * its shape allowed the checks.
 */
export type FlowValidation =
  | { ok: true; flow: Flow; warnings: FlowProblem[] }
  | { ok: false; problems: FlowProblem[]; warnings: FlowProblem[] };

// Copies of the schema's name patterns, used to point at the offending key of an object
// (Ajv reports a bad property name at the object, not at the key).
const NAME = /^(?!(?:__proto__|constructor|prototype)$)[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const HEADER = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
const BAD_KEY = 'property name must be valid';
const MAX_LIST_ROWS = 10;

const NAME_MESSAGE =
  'must be a name of letters, digits and _ not starting with a digit, at most 64 characters, and not __proto__, constructor or prototype';

// Ajv explains a pattern by quoting it; these say what each of the schema's patterns means.
const PATTERN_MESSAGES: [marker: string, message: string][] = [
  [
    '(?:\\.[A-Za-z0-9_]{1,64})',
    'must be a variable path like customer.city (letters, digits and _; no __proto__, constructor or prototype)',
  ],
  ['[A-Za-z_][A-Za-z0-9_]{0,63}$', NAME_MESSAGE],
  ['^https?://', 'must start with http:// or https://'],
  ['[A-Za-z0-9_.:-]{1,64}', 'must be 1 to 64 letters, digits or the characters _ . : -'],
  ['^[a-z]{2,3}', 'must be a language code like en or pt-BR'],
  ['"\\S"', 'must not be blank'],
];

/** Escapes one JSON Pointer segment (RFC 6901). */
function segment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function at(value: unknown, pointer: string): unknown {
  let current = value;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) {
      return undefined;
    }
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function friendly(problem: FlowProblem): FlowProblem {
  const { path, message } = problem;
  if (message.startsWith('must match pattern')) {
    const known = PATTERN_MESSAGES.find(([marker]) => message.includes(marker));
    return known ? { path, message: known[1] } : problem;
  }
  if (/^must NOT have (more|fewer) than 1 properties$/.test(message)) {
    if (/\/actions\/\d+$/.test(path)) {
      return {
        path,
        message:
          'must hold exactly one of send, set, http, answer_from, choose_language, handoff, llm',
      };
    }
    if (path.endsWith('/send')) return { path, message: 'must have text, image or document' };
    return { path, message: 'must hold exactly one operator' };
  }
  return problem;
}

/** Schema problems made readable: bad keys reported at the key, patterns explained. */
function schemaProblems(flow: unknown, problems: FlowProblem[]): FlowProblem[] {
  const badKeyObjects = new Set(problems.filter((p) => p.message === BAD_KEY).map((p) => p.path));
  const out: FlowProblem[] = [];
  for (const pointer of badKeyObjects) {
    const object = at(flow, pointer);
    if (object === null || typeof object !== 'object') continue;
    const valid = pointer.endsWith('/headers') ? HEADER : NAME;
    for (const key of Object.keys(object)) {
      if (valid.test(key)) continue;
      out.push({
        path: `${pointer}/${segment(key)}`,
        message: pointer.endsWith('/headers') ? 'is not a valid header name' : NAME_MESSAGE,
      });
    }
  }
  const rest = problems.filter((p) => !badKeyObjects.has(p.path)).map(friendly);
  return [...out, ...rest];
}

function hasOptions(action: Action): action is { send: Send } {
  return 'send' in action && (action.send.buttons !== undefined || action.send.list !== undefined);
}

function checkSend(send: Send, base: string, problems: FlowProblem[]): void {
  if (send.buttons && send.list) {
    problems.push({ path: `${base}/list`, message: 'must not be used together with buttons' });
  }
  const seen = new Set<string>();
  send.buttons?.forEach((button, j) => {
    if (seen.has(button.id)) {
      problems.push({ path: `${base}/buttons/${j}/id`, message: 'repeats an earlier id' });
    }
    seen.add(button.id);
  });
  if (!send.list) return;
  const rows = send.list.sections.reduce((sum, section) => sum + section.rows.length, 0);
  if (rows > MAX_LIST_ROWS) {
    problems.push({
      path: `${base}/list/sections`,
      message: `holds ${rows} rows; at most ${MAX_LIST_ROWS} in all sections together`,
    });
  }
  send.list.sections.forEach((section, s) =>
    section.rows.forEach((row, r) => {
      if (seen.has(row.id)) {
        problems.push({
          path: `${base}/list/sections/${s}/rows/${r}/id`,
          message: 'repeats an earlier id',
        });
      }
      seen.add(row.id);
    }),
  );
}

function checkReserved(name: string | undefined, path: string, problems: FlowProblem[]): void {
  if (name !== undefined && (RESERVED_VARS as readonly string[]).includes(name)) {
    problems.push({
      path,
      message: `is reserved (${RESERVED_VARS.join(', ')} are set by botwire)`,
    });
  }
}

function checkAction(action: Action, base: string, problems: FlowProblem[]): void {
  if ('send' in action) {
    checkSend(action.send, `${base}/send`, problems);
    checkOptionExamples(action.send, `${base}/send`, problems);
  }
  if ('llm' in action) {
    checkReserved(action.llm.store, `${base}/llm/store`, problems);
    checkLlm(action.llm, `${base}/llm`, problems);
  }
  if ('set' in action) {
    for (const key of Object.keys(action.set)) checkReserved(key, `${base}/set/${key}`, problems);
  }
  if ('http' in action) {
    if (action.http.method === 'GET' && action.http.body !== undefined) {
      problems.push({ path: `${base}/http/body`, message: 'is not sent with GET' });
    }
    checkReserved(action.http.store, `${base}/http/store`, problems);
  }
  if ('answer_from' in action) {
    checkReserved(action.answer_from.store, `${base}/answer_from/store`, problems);
  }
  if ('choose_language' in action) {
    const seen = new Set<string>();
    action.choose_language.options.forEach((option, j) => {
      if (seen.has(option.code)) {
        problems.push({
          path: `${base}/choose_language/options/${j}/code`,
          message: 'repeats an earlier code',
        });
      }
      seen.add(option.code);
    });
  }
}

function checkState(flow: Flow, name: string, state: FlowState, problems: FlowProblem[]): void {
  const base = `/states/${name}`;
  const exists = (target: string, path: string): void => {
    if (!Object.hasOwn(flow.states, target)) {
      problems.push({ path, message: `names no state ("${target}")` });
    }
  };
  if (state.next !== undefined) exists(state.next, `${base}/next`);
  state.transitions?.forEach((t, i) => exists(t.to, `${base}/transitions/${i}/to`));
  if (state.wait?.on_fail !== undefined) exists(state.wait.on_fail, `${base}/wait/on_fail`);
  const actions = state.actions ?? [];
  const handoffAt = actions.findIndex((action) => 'handoff' in action);
  const handoff = actions[handoffAt];
  if (handoff && 'handoff' in handoff) {
    exists(handoff.handoff.fallback, `${base}/actions/${handoffAt}/handoff/fallback`);
    // The turn stops at a handoff; what follows it would never run.
    if (handoffAt < actions.length - 1) {
      problems.push({
        path: `${base}/actions/${handoffAt + 1}`,
        message: 'follows a handoff, which ends the state: it would never run',
      });
    }
  }

  if (state.next !== undefined && state.transitions) {
    problems.push({ path: `${base}/next`, message: 'must not be used together with transitions' });
  }
  if (state.end && (state.next !== undefined || state.transitions)) {
    problems.push({
      path: `${base}/end`,
      message: 'must not be used together with next or transitions',
    });
  }
  if (
    !state.wait &&
    state.next === undefined &&
    !state.transitions &&
    !state.end &&
    handoffAt < 0
  ) {
    problems.push({
      path: base,
      message: 'is a dead end: give it a wait, next, transitions or end',
    });
  }
  actions.forEach((action, i) => checkAction(action, `${base}/actions/${i}`, problems));

  const wait = state.wait;
  if (!wait) return;
  checkReserved(wait.store, `${base}/wait/store`, problems);
  if (wait.pattern !== undefined) {
    if (wait.expect === 'choice') {
      problems.push({ path: `${base}/wait/pattern`, message: 'does not apply to expect "choice"' });
    } else {
      const compiled = compilePattern(wait.pattern);
      if (!compiled.ok) {
        problems.push({
          path: `${base}/wait/pattern`,
          message: `is not a pattern RE2 matches in linear time (no backreferences or lookaround, repetitions up to 1000): ${compiled.reason}`,
        });
      }
    }
  }
  if (wait.expect === 'choice' && !actions.some(hasOptions)) {
    problems.push({
      path: `${base}/wait/expect`,
      message: '"choice" needs a send with buttons or a list earlier in this state\'s actions',
    });
  }
}

/** States that no path from `start` (next, transitions, on_fail) reaches. */
function unreachable(flow: Flow): string[] {
  const seen = new Set<string>();
  // A global intent's state is reached from any wait.
  const queue = [
    flow.start,
    ...(flow.intents ?? []).flatMap((i) => (i.global && 'to' in i.global ? [i.global.to] : [])),
  ];
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    if (seen.has(name) || !Object.hasOwn(flow.states, name)) continue;
    seen.add(name);
    const state = flow.states[name];
    if (state?.next !== undefined) queue.push(state.next);
    for (const t of state?.transitions ?? []) queue.push(t.to);
    if (state?.wait?.on_fail !== undefined) queue.push(state.wait.on_fail);
    for (const action of state?.actions ?? []) {
      if ('handoff' in action) queue.push(action.handoff.fallback);
    }
  }
  return Object.keys(flow.states).filter((name) => !seen.has(name));
}

/**
 * Checks a flow. `ok: false` lists every problem found (schema problems alone when the shape is
 * wrong, since the semantic checks need the shape). `warnings` are kept from refusing a flow:
 * states no path from `start` reaches, and stretches of a turn that can make more HTTP steps or
 * wait longer for them than `budget` allows (`flow-budget.ts`).
 * @param budget the per-turn budgets to check against. @defaultValue DEFAULT_FLOW_BUDGET
 */
export function validateFlow(
  schemas: SchemaRegistry,
  flow: unknown,
  budget: FlowBudget = DEFAULT_FLOW_BUDGET,
): FlowValidation {
  const shaped = schemas.validate<Flow>(FLOW_SCHEMA, flow);
  if (!shaped.ok)
    return { ok: false, problems: schemaProblems(flow, shaped.problems), warnings: [] };
  const value = shaped.value;
  const problems: FlowProblem[] = [];
  if (!Object.hasOwn(value.states, value.start)) {
    problems.push({ path: '/start', message: `names no state ("${value.start}")` });
  }
  for (const [name, state] of Object.entries(value.states)) {
    checkState(value, name, state, problems);
  }
  checkIntents(value, problems);
  checkIntentConditions(value, problems);
  checkLlmTurnTokens(value, problems);
  const warnings = [
    ...unreachable(value).map((name) => ({
      path: `/states/${name}`,
      message: 'is never reached from start',
    })),
    ...budgetWarnings(value, budget),
  ];
  if (problems.length > 0) return { ok: false, problems, warnings };
  return { ok: true, flow: value, warnings };
}

/**
 * The flow, or `BW_ERR_FLOW_INVALID` with `details.problems` listing each problem's path (and
 * `details.warnings`, which alone would not refuse it).
 */
export function assertValidFlow(schemas: SchemaRegistry, flow: unknown): Flow {
  const result = validateFlow(schemas, flow);
  if (result.ok) return result.flow;
  const summary = result.problems.map((p) => `${p.path} ${p.message}`).join('; ');
  throw new BotwireError('BW_ERR_FLOW_INVALID', `the flow is invalid: ${summary}`, {
    details: { problems: result.problems, warnings: result.warnings },
  });
}

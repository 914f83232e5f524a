/**
 * A transition's condition as a short label for its edge: the option a press answers to when
 * the condition only compares the wait's answer with an option id, else the JSON Logic written
 * out (`bikes >= 1 and bikes <= 5`).
 */
import { isRecord, type FlowState } from './flow-types.ts';

/** Edge labels longer than this many characters are cut with an ellipsis. */
export const MAX_LABEL_CHARS = 40;

const INFIX = new Set(['==', '!=', '===', '!==', '>', '>=', '<', '<=', 'in']);

/** Option ids offered in a state (buttons, list rows, language codes) with their titles. */
export function stateOptions(state: FlowState): Map<string, string> {
  const options = new Map(sentOptions(state).map((o) => [o.id, o.title] as const));
  const actions: unknown[] = Array.isArray(state.actions) ? state.actions : [];
  for (const action of actions) {
    if (!isRecord(action)) continue;
    const choose = action.choose_language;
    if (isRecord(choose) && Array.isArray(choose.options)) {
      for (const option of choose.options) {
        if (isRecord(option) && typeof option.code === 'string') {
          options.set(option.code, typeof option.title === 'string' ? option.title : option.code);
        }
      }
    }
  }
  return options;
}

/** The reply buttons and list rows `state` sends, in the order sent (no language choice). */
export function sentOptions(state: FlowState): { id: string; title: string }[] {
  const options: { id: string; title: string }[] = [];
  const add = (option: unknown): void => {
    if (isRecord(option) && typeof option.id === 'string') {
      options.push({
        id: option.id,
        title: typeof option.title === 'string' ? option.title : option.id,
      });
    }
  };
  const actions: unknown[] = Array.isArray(state.actions) ? state.actions : [];
  for (const action of actions) {
    const send = isRecord(action) ? action.send : undefined;
    if (!isRecord(send)) continue;
    for (const button of Array.isArray(send.buttons) ? send.buttons : []) add(button);
    const sections = isRecord(send.list) ? send.list.sections : undefined;
    for (const section of Array.isArray(sections) ? sections : []) {
      const rows: unknown = isRecord(section) ? section.rows : undefined;
      for (const row of Array.isArray(rows) ? rows : []) add(row);
    }
  }
  return options;
}

/** The variable a `{"var": ...}` reads, or null when the value is something else. */
function varPath(value: unknown): string | null {
  if (!isRecord(value) || Object.keys(value).length !== 1 || !('var' in value)) return null;
  const path: unknown = Array.isArray(value.var) ? (value.var as unknown[])[0] : value.var;
  return typeof path === 'string' ? path : null;
}

/**
 * The option id a condition tests the wait's answer against (`{"==": [{"var": "topic"},
 * "book"]}` where the wait stores `topic`), or null when it tests anything else.
 */
export function optionOfCondition(when: unknown, state: FlowState): string | null {
  if (!isRecord(when)) return null;
  const [op, ...more] = Object.keys(when);
  if ((op !== '==' && op !== '===') || more.length > 0) return null;
  const args = when[op];
  if (!Array.isArray(args) || args.length !== 2) return null;
  const store = isRecord(state.wait) ? state.wait.store : undefined;
  for (const [left, right] of [
    [args[0], args[1]],
    [args[1], args[0]],
  ] as const) {
    const path = varPath(left);
    if (path !== null && (path === store || path === 'input') && typeof right === 'string') {
      return right;
    }
  }
  return null;
}

function text(value: unknown): string {
  const path = varPath(value);
  if (path !== null) return path;
  if (Array.isArray(value)) return `[${value.map(text).join(', ')}]`;
  if (!isRecord(value)) return JSON.stringify(value) ?? 'null';
  const [op] = Object.keys(value);
  if (op === undefined) return '{}';
  const raw = value[op];
  if (op === 'intent' && typeof raw === 'string') return `means ${raw}`;
  const args: unknown[] = Array.isArray(raw) ? raw : [raw];
  if (INFIX.has(op) && args.length === 2) return `${text(args[0])} ${op} ${text(args[1])}`;
  if (op === 'and' || op === 'or') return args.map((a) => wrap(a)).join(` ${op} `);
  if (op === '!' || op === '!!') return `${op}${wrap(args[0])}`;
  return `${op}(${args.map(text).join(', ')})`;
}

/** A condition written out in full (`bikes >= 1 and bikes <= 5`), as the turn trace shows it. */
export function conditionText(when: unknown): string {
  return text(when);
}

function wrap(value: unknown): string {
  const inner = text(value);
  const op = isRecord(value) ? Object.keys(value)[0] : undefined;
  return op === 'and' || op === 'or' ? `(${inner})` : inner;
}

function cut(label: string): string {
  return label.length > MAX_LABEL_CHARS ? `${label.slice(0, MAX_LABEL_CHARS - 1)}…` : label;
}

/**
 * The label of transition `index` of `state`: `“title”` for a press of an option, `else` for a
 * transition without condition after others, `always` for a lone one, else the condition.
 */
export function conditionLabel(state: FlowState, index: number): string {
  const transitions = Array.isArray(state.transitions) ? state.transitions : [];
  const when: unknown = transitions[index]?.when;
  if (when === undefined) return index > 0 ? 'else' : 'always';
  const option = optionOfCondition(when, state);
  if (option !== null) {
    const title = stateOptions(state).get(option);
    if (title !== undefined) return cut(`“${title}”`);
  }
  return cut(text(when));
}

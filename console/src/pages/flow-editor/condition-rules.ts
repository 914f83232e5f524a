/**
 * The condition builder's model: a few rules on variables (equals, is not, contains, is set, is
 * not set, more than, less than) joined by "all" (and) or "any" (or), to and from the JSON Logic
 * a transition stores. A condition of another shape is not rules (`fromLogic` answers null) and
 * stays editable as JSON Logic. Plain TypeScript (no DOM).
 */
import { isRecord, type Condition, type Flow } from './flow-types.ts';

export const OPERATORS = [
  { op: 'equals', label: 'equals', needsValue: true },
  { op: 'not_equals', label: 'is not', needsValue: true },
  { op: 'contains', label: 'contains', needsValue: true },
  { op: 'is_set', label: 'is set', needsValue: false },
  { op: 'not_set', label: 'is not set', needsValue: false },
  { op: 'greater', label: 'is more than', needsValue: true },
  { op: 'less', label: 'is less than', needsValue: true },
] as const;

export type Operator = (typeof OPERATORS)[number]['op'];

export interface Rule {
  variable: string;
  op: Operator;
  /** As typed; `more than` and `less than` compare it as a number. */
  value: string;
}

export interface Rules {
  join: 'and' | 'or';
  rules: Rule[];
}

const variable = (name: string) => ({ var: name });

function ruleToLogic(rule: Rule): Condition {
  const v = variable(rule.variable);
  switch (rule.op) {
    case 'equals':
      return { '==': [v, rule.value] };
    case 'not_equals':
      return { '!=': [v, rule.value] };
    case 'contains':
      return { in: [rule.value, v] };
    case 'is_set':
      return { '!!': [v] };
    case 'not_set':
      return { '!': [v] };
    case 'greater':
      return { '>': [v, Number(rule.value)] };
    case 'less':
      return { '<': [v, Number(rule.value)] };
  }
}

/** The JSON Logic of `rules`: one rule alone, several under `and` or `or`. */
export function toLogic(rules: Rules): Condition {
  const all = rules.rules.map(ruleToLogic);
  return all.length === 1 ? all[0]! : { [rules.join]: all };
}

function varName(value: unknown): string | null {
  return isRecord(value) && Object.keys(value).length === 1 && typeof value.var === 'string'
    ? value.var
    : null;
}

const SIMPLE = (value: unknown): value is string | number | boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

function ruleFromLogic(logic: unknown): Rule | null {
  if (!isRecord(logic)) return null;
  const keys = Object.keys(logic);
  if (keys.length !== 1) return null;
  const op = keys[0]!;
  const raw = logic[op];
  const args: unknown[] = Array.isArray(raw) ? raw : [raw];
  if ((op === '!!' || op === '!') && args.length === 1) {
    const name = varName(args[0]);
    return name === null
      ? null
      : { variable: name, op: op === '!!' ? 'is_set' : 'not_set', value: '' };
  }
  if (args.length !== 2) return null;
  if (op === 'in') {
    const name = varName(args[1]);
    return name !== null && typeof args[0] === 'string'
      ? { variable: name, op: 'contains', value: args[0] }
      : null;
  }
  const name = varName(args[0]);
  if (name === null || !SIMPLE(args[1])) return null;
  const value = String(args[1]);
  if (op === '==' && typeof args[1] === 'string') return { variable: name, op: 'equals', value };
  if (op === '!=' && typeof args[1] === 'string')
    return { variable: name, op: 'not_equals', value };
  if (op === '>' && typeof args[1] === 'number') return { variable: name, op: 'greater', value };
  if (op === '<' && typeof args[1] === 'number') return { variable: name, op: 'less', value };
  return null;
}

/** `when` as rules, or null when it has another shape (edited as JSON Logic then). */
export function fromLogic(when: Condition | undefined): Rules | null {
  const logic: unknown = when;
  if (!isRecord(logic)) return null;
  const keys = Object.keys(logic);
  if (keys.length === 1 && (keys[0] === 'and' || keys[0] === 'or')) {
    const parts: unknown = logic[keys[0]];
    if (!Array.isArray(parts) || parts.length === 0) return null;
    const rules = parts.map(ruleFromLogic);
    return rules.every((r): r is Rule => r !== null) ? { join: keys[0], rules } : null;
  }
  const rule = ruleFromLogic(logic);
  return rule ? { join: 'and', rules: [rule] } : null;
}

/**
 * The variables a flow has, for the pickers of conditions and templates: what its waits, `set`
 * steps, HTTP, knowledge and LLM steps store, and `input` and `language`, in name order.
 */
export function flowVariables(flow: Flow): string[] {
  const names = new Set<string>(['input', 'language']);
  const states: unknown[] = isRecord(flow.states) ? Object.values(flow.states) : [];
  for (const state of states) {
    if (!isRecord(state)) continue;
    if (isRecord(state.wait) && typeof state.wait.store === 'string') names.add(state.wait.store);
    const actions: unknown[] = Array.isArray(state.actions) ? state.actions : [];
    for (const action of actions) {
      if (!isRecord(action)) continue;
      if (isRecord(action.set)) for (const key of Object.keys(action.set)) names.add(key);
      for (const kind of ['http', 'llm', 'answer_from'] as const) {
        const step = action[kind];
        if (isRecord(step) && typeof step.store === 'string') names.add(step.store);
      }
    }
  }
  return [...names].sort();
}

/**
 * Conditions: JSON Logic (json-logic-js) over a whitelist of operators. The schema already
 * refuses other operators; the engine checks again, because a stored flow may predate a schema
 * change, and evaluates over a prototype-free copy of the variables. `{"intent": name}` is
 * botwire's own: true when the turn's input was understood as that intent (docs/flows.md).
 */
import jsonLogic, { type RulesLogic } from 'json-logic-js';
import { CONDITION_OPERATORS, type Condition } from '../../shared/flows/types.ts';

const ALLOWED = new Set<string>(CONDITION_OPERATORS);

/**
 * Longest string `cat` may build (characters). json-logic-js joins whatever it is given, so a
 * condition naming a large variable a thousand times would build (and `in` would then search) a
 * string of up to V8's limit, half a gigabyte, in one evaluation. Past this the condition throws,
 * which makes it false.
 */
export const MAX_CAT_CHARS = 64 * 1024;

// json-logic-js keeps one table of operations per process: `cat` is replaced there, once, by the
// same join with a running count that stops before the limit is passed.
jsonLogic.add_operation('cat', (...parts: unknown[]): string => {
  let length = 0;
  const strings = parts.map((part) => {
    // As Array.prototype.join writes each part (objects as `[object Object]`, as json-logic-js does).
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    const text = part === null || part === undefined ? '' : String(part);
    length += text.length;
    if (length > MAX_CAT_CHARS) throw new RangeError(`cat would pass ${MAX_CAT_CHARS} characters`);
    return text;
  });
  return strings.join('');
});
const MAX_DEPTH = 32;
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** Whether `condition` uses only whitelisted operators, with literal variable paths. */
export function isSafeCondition(condition: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH) return false;
  if (condition === null || typeof condition !== 'object') return true;
  if (Array.isArray(condition)) return condition.every((c) => isSafeCondition(c, depth + 1));
  const keys = Object.keys(condition);
  if (keys.length !== 1) return false;
  const op = keys[0] as string;
  if (op === 'intent') return typeof (condition as { intent: unknown }).intent === 'string';
  if (!ALLOWED.has(op)) return false;
  const args: unknown = (condition as Record<string, unknown>)[op];
  // var and missing name paths literally (a computed path could spell __proto__), and no path
  // steps into a prototype (even a string's: "name.constructor" is the String function).
  if (op === 'var' || op === 'missing') {
    const list: unknown[] = Array.isArray(args) ? args : [args];
    const paths = op === 'var' ? list.slice(0, 1) : list;
    return (
      list.every((a) => a === null || typeof a !== 'object') &&
      paths.every((p) =>
        String(p)
          .split('.')
          .every((step) => !FORBIDDEN.has(step)),
      )
    );
  }
  return isSafeCondition(args, depth + 1);
}

/** A deep copy of JSON-like data whose objects have no prototype (so no `constructor`). */
function bare(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'function' ? undefined : value;
  }
  if (depth > MAX_DEPTH) return undefined;
  if (Array.isArray(value)) return value.map((item) => bare(item, depth + 1));
  const out = Object.create(null) as Record<string, unknown>;
  for (const [key, item] of Object.entries(value)) out[key] = bare(item, depth + 1);
  return out;
}

/** `condition` with each `{"intent": name}` replaced by whether `name` is the turn's intent. */
function withIntent(condition: Condition, intent: string | undefined): Condition {
  if (condition === null || typeof condition !== 'object') return condition;
  if (Array.isArray(condition)) return condition.map((c) => withIntent(c, intent));
  if ('intent' in condition) return condition.intent === intent;
  const [op, args] = Object.entries(condition)[0] as [string, Condition];
  return { [op]: withIntent(args, intent) };
}

/**
 * Whether `condition` holds for `scope` (JSON Logic truthiness). A condition that is unsafe or
 * throws (an operator applied to the wrong kind of value) is false.
 * @param intent the intent the turn's input was understood as, if any
 */
export function evaluateCondition(
  condition: Condition,
  scope: Readonly<Record<string, unknown>>,
  intent?: string,
): boolean {
  if (!isSafeCondition(condition)) return false;
  try {
    // json-logic-js is typed with `any`; the rule is checked above and the result only tested.
    const rule = withIntent(condition, intent) as RulesLogic;
    const result: unknown = jsonLogic.apply(rule, bare(scope));
    return jsonLogic.truthy(result);
  } catch {
    return false;
  }
}

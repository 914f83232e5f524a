/**
 * `{{var.path}}` templates. Rendering only looks values up: no expressions, no code, no access
 * beyond the variables' own properties (prototype names resolve to nothing).
 */

/** A `{{ path }}` placeholder; the path is group 1. Global: reset `lastIndex` or use replace. */
export const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;

/**
 * Characters the templates of one turn may produce in all (`MAX_RENDERED_CHARS`): far above any
 * message or state a turn may keep (FLOW_STATE_MAX_BYTES), far below what a flow that feeds a
 * template its own output (`"{{x}}{{x}}"`, state after state) would otherwise build: a gigabyte
 * within 27 states, in one turn.
 */
export const MAX_RENDERED_CHARS = 4 * 1024 * 1024;

/** Thrown when a turn's templates pass their budget (`RenderMeter`); the turn stops. */
export class RenderBudgetError extends Error {
  constructor(limit: number) {
    super(`the turn's templates produced more than ${limit} characters`);
    this.name = 'RenderBudgetError';
  }
}

/**
 * Counts what templates produce, across every render of one turn: a turn that resumes after an
 * effect runs the engine again with a meter that starts from what the earlier runs spent.
 */
export class RenderMeter {
  readonly limit: number;
  #spent: number;

  /** @param spent characters already produced by this turn's earlier runs of the engine */
  constructor(limit = MAX_RENDERED_CHARS, spent = 0) {
    this.limit = limit;
    this.#spent = spent;
  }

  /** Characters produced so far, the earlier runs' included. */
  get spent(): number {
    return this.#spent;
  }

  /** @throws RenderBudgetError once the characters produced pass the limit. */
  spend(chars: number): void {
    this.#spent += chars;
    if (this.#spent > this.limit) throw new RenderBudgetError(this.limit);
  }
}

const METER = Symbol('render meter');

/**
 * `vars` with `meter` attached: every render over them (and over copies made with the spread
 * operator, which keeps symbol keys) is counted. The meter is a symbol-keyed property, which no
 * template path, JSON copy or condition sees.
 */
export function metered<T extends Record<string, unknown>>(vars: T, meter: RenderMeter): T {
  return Object.defineProperty({ ...vars }, METER, { value: meter, enumerable: true });
}

/** The meter attached to `vars`, if any. */
export function meterOf(vars: Readonly<Record<string, unknown>>): RenderMeter | undefined {
  return (vars as { [METER]?: RenderMeter })[METER];
}
const WHOLE_PLACEHOLDER = /^\{\{\s*([^{}\s]+)\s*\}\}$/;
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The value at a dotted path (`customer.address.city`, `items.0`), or `undefined` when any step
 * is missing, is not an own property, or names `__proto__`, `constructor` or `prototype`.
 */
export function lookup(vars: Readonly<Record<string, unknown>>, path: string): unknown {
  let current: unknown = vars;
  for (const segment of path.split('.')) {
    if (segment === '' || FORBIDDEN_SEGMENTS.has(segment)) return undefined;
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** How a looked-up value reads in text: strings as is, numbers and booleans as written, objects
 * as JSON, missing and null as the empty string. */
export function stringify(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  if (typeof value === 'object') {
    try {
      return JSON.stringify(value) ?? '';
    } catch {
      return '';
    }
  }
  return '';
}

export interface RenderOptions {
  /** Applied to each substituted value (the HTTP action percent-encodes URL placeholders). */
  encode?: (value: string) => string;
}

/** `template` with every `{{ path }}` replaced by the value of `path` in `vars`. */
export function render(
  template: string,
  vars: Readonly<Record<string, unknown>>,
  options: RenderOptions = {},
): string {
  const encode = options.encode ?? ((value: string) => value);
  const meter = meterOf(vars);
  meter?.spend(template.length);
  return template.replace(PLACEHOLDER, (_match, path: string) => {
    const value = encode(stringify(lookup(vars, path)));
    meter?.spend(value.length);
    return value;
  });
}

/**
 * Like `render`, except that a template that is exactly one placeholder yields the value itself
 * with its type (a number stays a number, an object stays an object); a missing value is `null`.
 */
export function renderValue(template: string, vars: Readonly<Record<string, unknown>>): unknown {
  const whole = WHOLE_PLACEHOLDER.exec(template);
  if (whole?.[1] !== undefined) return lookup(vars, whole[1]) ?? null;
  return render(template, vars);
}

/** A JSON value with `renderValue` applied to every string in it (keys are kept as written). */
export function renderJson(value: unknown, vars: Readonly<Record<string, unknown>>): unknown {
  if (typeof value === 'string') return renderValue(value, vars);
  if (Array.isArray(value)) return value.map((item) => renderJson(item, vars));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty: a key named __proto__ stays a plain key, never a prototype.
      Object.defineProperty(out, key, {
        value: renderJson(item, vars),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/**
 * What changed between two flows, by state name, and which conversation states a flow no longer
 * has. Flows here may be invalid (a draft), so nothing assumes more than "an object, maybe with an
 * object `states`".
 */

export interface FlowChanges {
  /** States of the newer flow that the older one lacks. */
  added: string[];
  /** States of the older flow that the newer one lacks. */
  removed: string[];
  /** States of both whose definitions differ. */
  changed: string[];
}

/** The state definitions of a flow, by name; empty when it has no `states` object. */
export function statesOf(flow: unknown): Record<string, unknown> {
  const states = (flow as { states?: unknown } | null)?.states;
  if (states === null || typeof states !== 'object' || Array.isArray(states)) return {};
  return states as Record<string, unknown>;
}

/** JSON with object keys sorted, so two equal definitions compare equal whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The state names `after` added, removed and changed compared with `before` (undefined: nothing
 * before, so every state is added), each list sorted.
 */
export function flowChanges(before: unknown, after: unknown): FlowChanges {
  const old = statesOf(before);
  const now = statesOf(after);
  const added = Object.keys(now).filter((name) => !Object.hasOwn(old, name));
  const removed = Object.keys(old).filter((name) => !Object.hasOwn(now, name));
  const changed = Object.keys(now).filter(
    (name) => Object.hasOwn(old, name) && canonical(old[name]) !== canonical(now[name]),
  );
  return { added: added.sort(), removed: removed.sort(), changed: changed.sort() };
}

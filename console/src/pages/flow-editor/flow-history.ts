/**
 * Undo and redo of the flow editor (Ctrl+Z, Ctrl+Shift+Z): every edit of the flow, by form, graph
 * or JSON, is one step, so undo gives back the exact flow before it. Typing into one field is one
 * step, not one per key: an edit that changes the same single value as the step before, within
 * `COALESCE_MS`, joins that step. Plain TypeScript (no DOM).
 */

/** Steps kept to undo; the oldest is forgotten first. */
export const MAX_STEPS = 200;
/** Edits of the same value closer than this join one step (ms). */
export const COALESCE_MS = 1000;

export interface History<T> {
  /** Older flows, the newest last. */
  past: T[];
  present: T;
  /** Flows undone, the next to redo first. */
  future: T[];
  /** The value the last step changed, when it changed one alone, and when (ms). */
  last?: { path: string; at: number };
}

export function startHistory<T>(present: T): History<T> {
  return { past: [], present, future: [] };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/**
 * The JSON Pointer of the one scalar that differs between `a` and `b`, or null when nothing
 * differs, several things do, or a structure changed (a state added, an action moved).
 */
export function onlyChange(a: unknown, b: unknown, path = ''): string | null {
  if (Object.is(a, b)) return null;
  if (!isObject(a) || !isObject(b)) return typeof a === typeof b ? path || '/' : null;
  if (Array.isArray(a) !== Array.isArray(b)) return null;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  let found: string | null = null;
  for (const key of keys) {
    if (!(key in a) || !(key in b)) return null;
    if (JSON.stringify(a[key]) === JSON.stringify(b[key])) continue;
    if (found !== null) return null;
    found = onlyChange(a[key], b[key], `${path}/${key}`);
    if (found === null) return null;
  }
  return found;
}

/** `next` as a new step (or joined to the last one, see above); what was undone is dropped. */
export function record<T>(history: History<T>, next: T, now: number): History<T> {
  if (JSON.stringify(next) === JSON.stringify(history.present)) return history;
  const path = onlyChange(history.present, next);
  const last = history.last;
  if (
    path !== null &&
    last?.path === path &&
    now - last.at < COALESCE_MS &&
    history.past.length > 0
  ) {
    return { past: history.past, present: next, future: [], last: { path, at: now } };
  }
  const past = [...history.past, history.present].slice(-MAX_STEPS);
  return { past, present: next, future: [], ...(path === null ? {} : { last: { path, at: now } }) };
}

export function undo<T>(history: History<T>): History<T> {
  const previous = history.past[history.past.length - 1];
  if (history.past.length === 0) return history;
  return {
    past: history.past.slice(0, -1),
    present: previous as T,
    future: [history.present, ...history.future],
  };
}

export function redo<T>(history: History<T>): History<T> {
  if (history.future.length === 0) return history;
  const [next, ...rest] = history.future;
  return { past: [...history.past, history.present], present: next as T, future: rest };
}

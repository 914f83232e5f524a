/**
 * Where a validation problem belongs: `/states/<name>/...` names a state (a node) and a field
 * inside it; anything else (`/start`, `/reset_keywords/0`) belongs to the flow's settings.
 */
import type { Problem } from '../../api/types.ts';

/** Unescapes one JSON Pointer segment (RFC 6901). */
export function unescapeSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Escapes one JSON Pointer segment (RFC 6901). */
export function escapeSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The pointer of a state, e.g. `/states/menu`. */
export function statePointer(name: string): string {
  return `/states/${escapeSegment(name)}`;
}

/** The state a pointer is inside, or null when it points at the flow's settings. */
export function stateOfPointer(path: string): string | null {
  const parts = path.split('/');
  if (parts[0] !== '' || parts[1] !== 'states' || parts[2] === undefined || parts[2] === '') {
    return null;
  }
  return unescapeSegment(parts[2]);
}

/** Findings grouped by the state they are in (the flow's own under the key `null`). */
export function problemsByState(problems: readonly Problem[]): Map<string | null, Problem[]> {
  const byState = new Map<string | null, Problem[]>();
  for (const problem of problems) {
    const state = stateOfPointer(problem.path);
    const list = byState.get(state);
    if (list) list.push(problem);
    else byState.set(state, [problem]);
  }
  return byState;
}

/** Findings by their exact pointer, for the form control that edits that value. */
export function problemsByPointer(problems: readonly Problem[]): Map<string, string[]> {
  const byPointer = new Map<string, string[]>();
  for (const { path, message } of problems) {
    const list = byPointer.get(path);
    if (list) list.push(message);
    else byPointer.set(path, [message]);
  }
  return byPointer;
}

/** A pointer made readable for a list: `/states/menu/transitions/1/to` → `menu › transitions › 1 › to`. */
export function pointerLabel(path: string): string {
  if (path === '') return 'flow';
  const parts = path.split('/').slice(1).map(unescapeSegment);
  if (parts[0] === 'states' && parts.length > 1) parts.shift();
  return parts.join(' › ');
}

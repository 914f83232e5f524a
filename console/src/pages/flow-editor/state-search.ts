/**
 * Finding states in a big flow: by name, or by any text the state holds (what it sends, its
 * prompts, URLs, variables), without regard to case; in reading order (`stateOrder`). Plain
 * TypeScript (no DOM).
 */
import { stateOrder } from './flow-graph.ts';
import type { Flow } from './flow-types.ts';

/** Every string inside `value` (object keys left out). */
function texts(value: unknown, into: string[]): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const v of value) texts(v, into);
  else if (typeof value === 'object' && value !== null)
    for (const v of Object.values(value)) texts(v, into);
  return into;
}

/** The names of the states of `flow` that `query` finds, in reading order; all for ''. */
export function findStates(flow: Flow, query: string): string[] {
  const q = query.trim().toLowerCase();
  const names = stateOrder(flow);
  if (q === '') return names;
  return names.filter(
    (name) =>
      name.toLowerCase().includes(q) ||
      texts(flow.states[name], []).some((t) => t.toLowerCase().includes(q)),
  );
}

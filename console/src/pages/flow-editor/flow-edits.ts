/**
 * Edits of a whole flow that touch more than one state: add, rename and delete a state. Pure:
 * each returns a new flow and leaves its argument as it was.
 */
import { flowStates } from './flow-graph.ts';
import { isRecord, NAME_PATTERN, type Flow, type FlowState, omit } from './flow-types.ts';
import { nextOpenOption, optionCondition } from './option-edits.ts';

/** A place that names a state: `start`, a `next`, a transition's `to` or a wait's `on_fail`. */
export interface StateReference {
  /** The state holding the reference; null for the flow's `start`. */
  from: string | null;
  kind: 'start' | 'next' | 'transition' | 'on_fail';
  /** The transition's index for kind `transition`. */
  index?: number;
}

/** Why `name` cannot name a new state of `flow`, or null when it can. */
export function stateNameProblem(flow: Flow, name: string, except?: string): string | null {
  if (!NAME_PATTERN.test(name)) {
    return 'Use letters, digits and _, not starting with a digit, at most 64 characters.';
  }
  if (name !== except && isRecord(flow.states) && Object.hasOwn(flow.states, name)) {
    return `A state named "${name}" exists already.`;
  }
  return null;
}

/** Every reference to state `name`, in flow order. */
export function referencesTo(flow: Flow, name: string): StateReference[] {
  const refs: StateReference[] = [];
  if (flow.start === name) refs.push({ from: null, kind: 'start' });
  for (const [from, state] of flowStates(flow)) {
    if (state.next === name) refs.push({ from, kind: 'next' });
    (Array.isArray(state.transitions) ? state.transitions : []).forEach((t, index) => {
      if (isRecord(t) && t.to === name) refs.push({ from, kind: 'transition', index });
    });
    if (isRecord(state.wait) && state.wait.on_fail === name) refs.push({ from, kind: 'on_fail' });
  }
  return refs;
}

/**
 * A name no state has yet: `state_<n>`, or for another `base` (a copy's `ask_copy`) that name
 * itself when free, else `<base>_<n>`.
 */
export function freeStateName(flow: Flow, base = 'state'): string {
  const states = isRecord(flow.states) ? flow.states : {};
  if (base !== 'state' && !Object.hasOwn(states, base)) return base;
  for (let n = 1; ; n++) {
    const name = `${base}_${n}`;
    if (!Object.hasOwn(states, name)) return name;
  }
}

/**
 * `flow` with a new state `name` that ends the conversation (`{end: true}`, so it is valid at
 * once). No other state changes: connecting it is an edit of its own (`connect`).
 */
export function addState(flow: Flow, name: string): Flow {
  return { ...flow, states: { ...flow.states, [name]: { end: true } } };
}

/**
 * `flow` with a way from state `from` to state `to` (a drag from one to the other on the canvas).
 * A state that offers options gets a transition taken when its next option not yet connected is
 * chosen (option-edits.ts), placed before any transition with no condition (a `next` becomes the
 * last one). Otherwise a state that ended or had no way out goes on to `to`
 * (`next`), and one with a `next` or transitions gets a transition to `to` after them (its
 * `next` becomes the first transition), whose condition the operator then sets. Already
 * connected: unchanged.
 */
export function connect(flow: Flow, from: string, to: string): Flow {
  const found: unknown = flow.states[from];
  if (!isRecord(found) || !Object.hasOwn(flow.states, to)) return flow;
  const source = found as FlowState;
  const transitions = Array.isArray(source.transitions) ? source.transitions : undefined;
  if (source.next === to || transitions?.some((t) => t.to === to)) return flow;
  const option = nextOpenOption(source);
  let state: FlowState;
  if (option !== null) {
    // Before the first transition with no condition, which would take every answer first.
    const way = { when: optionCondition(source, option), to };
    const list = transitions ?? (typeof source.next === 'string' ? [{ to: source.next }] : []);
    const always = list.findIndex((t) => t.when === undefined);
    const at = always === -1 ? list.length : always;
    state = {
      ...omit(source, 'end', 'next'),
      transitions: [...list.slice(0, at), way, ...list.slice(at)],
    };
  } else if (transitions) state = { ...source, transitions: [...transitions, { to }] };
  else if (typeof source.next === 'string')
    state = { ...omit(source, 'next'), transitions: [{ to: source.next }, { to }] };
  else state = { ...omit(source, 'end'), next: to };
  return { ...flow, states: { ...flow.states, [from]: state } };
}

/**
 * `flow` with a copy of state `name` as `copy` (its actions, wait and ways out; nothing points at
 * the copy yet). `def` copies a state from elsewhere (a paste) instead of `name`'s.
 */
export function duplicateState(flow: Flow, name: string, copy: string, def?: FlowState): Flow {
  const source = def ?? flow.states[name];
  if (!isRecord(source) || Object.hasOwn(flow.states, copy)) return flow;
  return { ...flow, states: { ...flow.states, [copy]: structuredClone(source) } };
}

/** `flow` with `state` in place of the state `name` (its position in the order kept). */
export function replaceState(flow: Flow, name: string, state: FlowState): Flow {
  return { ...flow, states: { ...flow.states, [name]: state } };
}

function retarget(state: FlowState, from: string, to: string): FlowState {
  let changed = state;
  if (state.next === from) changed = { ...changed, next: to };
  if (Array.isArray(state.transitions) && state.transitions.some((t) => t.to === from)) {
    changed = {
      ...changed,
      transitions: state.transitions.map((t) => (t.to === from ? { ...t, to } : t)),
    };
  }
  if (isRecord(state.wait) && state.wait.on_fail === from) {
    changed = { ...changed, wait: { ...state.wait, on_fail: to } };
  }
  return changed;
}

/**
 * `flow` with state `from` called `to`, keeping its place in the order; `start` and every
 * `next`, transition and `on_fail` that named it name the new state.
 */
export function renameState(flow: Flow, from: string, to: string): Flow {
  if (from === to || !Object.hasOwn(flow.states, from)) return flow;
  const states: Record<string, FlowState> = {};
  for (const [name, state] of Object.entries(flow.states)) {
    states[name === from ? to : name] = isRecord(state) ? retarget(state, from, to) : state;
  }
  const renamed = { ...flow, start: flow.start === from ? to : flow.start, states };
  // Its place on the canvas goes with it.
  const place = flow.layout?.[from];
  if (!flow.layout || !place) return renamed;
  return { ...renamed, layout: { ...omit(flow.layout, from), [to]: place } };
}

/** `flow` with state `name` drawn at `at` on the canvas (`layout`; conversations never read it). */
export function placeState(flow: Flow, name: string, at: { x: number; y: number }): Flow {
  if (!Object.hasOwn(flow.states, name)) return flow;
  const point = { x: Math.round(at.x), y: Math.round(at.y) };
  return { ...flow, layout: { ...(flow.layout ?? {}), [name]: point } };
}

/**
 * `flow` without state `name`. References to it go too: a `next` or `on_fail` naming it is
 * removed, as is each transition to it (a list left empty is removed). A state left with no way
 * out is then a dead end, which validation reports. `start` is kept as it is: the caller asks
 * for another start first.
 */
export function deleteState(flow: Flow, name: string): Flow {
  const states: Record<string, FlowState> = {};
  for (const [other, state] of Object.entries(flow.states)) {
    if (other === name) continue;
    if (!isRecord(state)) {
      states[other] = state;
      continue;
    }
    let changed: FlowState = state;
    if (changed.next === name) {
      const rest = omit(changed, 'next');
      changed = rest;
    }
    if (Array.isArray(changed.transitions) && changed.transitions.some((t) => t.to === name)) {
      const kept = changed.transitions.filter((t) => t.to !== name);
      const rest = omit(changed, 'transitions');
      changed = kept.length > 0 ? { ...rest, transitions: kept } : rest;
    }
    if (changed.wait && changed.wait.on_fail === name) {
      const wait = omit(changed.wait, 'on_fail');
      changed = { ...changed, wait };
    }
    states[other] = changed;
  }
  if (!flow.layout?.[name]) return { ...flow, states };
  const layout = omit(flow.layout, name);
  return Object.keys(layout).length > 0
    ? { ...flow, states, layout }
    : { ...omit(flow, 'layout'), states };
}

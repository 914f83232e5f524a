/**
 * What the editor does for a state that offers options (reply buttons or a list), so that a menu
 * takes a few gestures: when it begins to offer them it waits for the user's choice, a drag from
 * it on the canvas connects its next option not yet connected, and a button's id follows its
 * title. Each shows in the state's
 * panel at once (the wait, the transition's condition) and is undone as one edit. Pure.
 */
import { optionOfCondition, stateOptions } from './condition-text.ts';
import type { Button, Condition, FlowState } from './flow-types.ts';

/** The condition "the user chose option `id`" of `state`: its wait's variable (or the input). */
export function optionCondition(state: FlowState, id: string): Condition {
  return { '==': [{ var: state.wait?.store ?? 'input' }, id] };
}

/**
 * `after`, the state `before` with its actions edited, waiting for the choice (`choice`, expect
 * one of the options) when it has just begun to offer options and waited for nothing.
 */
export function waitForChoice(before: FlowState, after: FlowState): FlowState {
  if (after.wait !== undefined) return after;
  if (stateOptions(before).size > 0 || stateOptions(after).size === 0) return after;
  return { ...after, wait: { store: 'choice', expect: 'choice' } };
}

/** The first option of `state`, in the order sent, that none of its transitions takes yet. */
export function nextOpenOption(state: FlowState): string | null {
  const transitions = Array.isArray(state.transitions) ? state.transitions : [];
  const taken = new Set(transitions.map((t) => optionOfCondition(t.when, state)));
  return [...stateOptions(state).keys()].find((id) => !taken.has(id)) ?? null;
}

/**
 * An id made of `title`: lower case without accents, runs of other characters as `_`, at most
 * 40 characters.
 */
export function idOfTitle(title: string): string {
  return title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40);
}

/**
 * `buttons` with button `i` titled `title`. Its id follows the title while it is the one the
 * editor gave (`option_<n>`, or made of the title before), so a press reports a readable id
 * without typing one; an id typed by hand stays. An id another button has, or an empty one, is
 * not taken.
 */
export function retitle(buttons: Button[], i: number, title: string): Button[] {
  const button = buttons[i];
  if (!button) return buttons;
  const given = button.id === `option_${i + 1}` || button.id === idOfTitle(button.title);
  const id = idOfTitle(title);
  const free = id !== '' && buttons.every((b, j) => j === i || b.id !== id);
  return buttons.map((b, j) => (j === i ? { ...b, title, ...(given && free ? { id } : {}) } : b));
}

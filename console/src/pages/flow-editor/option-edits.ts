/**
 * What the editor does for a state that offers options (reply buttons or a list), so that a menu
 * takes a few gestures and stays whole: when it begins to offer them it waits for the user's
 * choice, a drag from it on the canvas connects its next option not yet connected, a button's id
 * follows its title, and the transitions that test an option follow its id when it changes. Each
 * shows in the state's panel at once (the wait, the transition's condition) and is undone as one
 * edit. A language choice's options are not these: they need no wait of the state's. Pure.
 */
import { optionOfCondition, sentOptions } from './condition-text.ts';
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
  if (sentOptions(before).length > 0 || sentOptions(after).length === 0) return after;
  return { ...after, wait: { store: 'choice', expect: 'choice' } };
}

/**
 * `after`, the state `before` with its actions edited, whose transitions that tested an option
 * whose id changed (in the same place among the options sent) test the new id.
 */
export function followRenamedOptions(before: FlowState, after: FlowState): FlowState {
  const old = sentOptions(before);
  const now = sentOptions(after);
  if (old.length !== now.length || !Array.isArray(after.transitions)) return after;
  const renamed = new Map<string, string>();
  old.forEach((option, i) => {
    const id = now[i]!.id;
    if (option.id !== id && !now.some((o) => o.id === option.id)) renamed.set(option.id, id);
  });
  if (renamed.size === 0) return after;
  let changed = false;
  const transitions = after.transitions.map((t) => {
    const id = optionOfCondition(t.when, before);
    const to = id === null ? undefined : renamed.get(id);
    if (to === undefined) return t;
    changed = true;
    return { ...t, when: optionCondition(after, to) };
  });
  return changed ? { ...after, transitions } : after;
}

/** The first option of `state`, in the order sent, that none of its transitions takes yet. */
export function nextOpenOption(state: FlowState): string | null {
  const transitions = Array.isArray(state.transitions) ? state.transitions : [];
  const taken = new Set(transitions.map((t) => optionOfCondition(t.when, state)));
  return sentOptions(state).find(({ id }) => !taken.has(id))?.id ?? null;
}

/**
 * An id made of `title`: lower case without accents, runs of other characters as `_`, at most
 * 40 characters.
 */
function idOfTitle(title: string): string {
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
  // Given by the editor: a new button's `option_<n>`, one made of the title, or one whose title
  // was cleared (typing a title anew starts it again).
  const given =
    /^option_\d+$/.test(button.id) || button.id === idOfTitle(button.title) || button.title === '';
  const id = idOfTitle(title);
  const free = id !== '' && buttons.every((b, j) => j === i || b.id !== id);
  return buttons.map((b, j) => (j === i ? { ...b, title, ...(given && free ? { id } : {}) } : b));
}

/**
 * The six-state flow of issue "a builder people would switch to", built in the flow editor as a
 * person does, every gesture counted (a click, a field typed into, an option chosen, a drag):
 *
 *   start      "Hi! What can I do for you?" with buttons "Opening hours" and "Talk to us"
 *   ├ Opening hours → state_1 "We are open from 9 to 17, Monday to Friday." → state_4
 *   └ Talk to us    → state_2 "What is your email address?" (waits, stores `email`) → state_3
 *   state_3  "Thanks! We will write to {{email}}" → state_5
 *   state_4  "Anything else? Just write." (ends)
 *   state_5  "Goodbye!" (ends)
 *
 * `byCanvas` starts from the blank flow (one state, `start`) and uses the canvas: a drag from a
 * state's handle to empty space makes the next state. `byForms` builds the same flow with the
 * state list's form and the side panel's selects only, as the editor was used before the canvas
 * could connect states. Used by the browser test (flow-editor.test.ts) and `bench/console`.
 */
import type { Locator, Page } from 'playwright-core';
import { details } from './flow-editor-locators.ts';

export const SIX_STATE_TEXTS = {
  start: 'Hi! What can I do for you?',
  state_1: 'We are open from 9 to 17, Monday to Friday.',
  state_2: 'What is your email address?',
  state_3: 'Thanks! We will write to {{email}}',
  state_4: 'Anything else? Just write.',
  state_5: 'Goodbye!',
} as const;

export const SIX_STATE_BUTTONS = [
  { id: 'opening_hours', title: 'Opening hours' },
  { id: 'talk_to_us', title: 'Talk to us' },
] as const;

/** The flow both ways build (without the layout the canvas may add). */
export const SIX_STATE_FLOW = {
  version: 1,
  start: 'start',
  states: {
    start: {
      actions: [{ send: { text: SIX_STATE_TEXTS.start, buttons: SIX_STATE_BUTTONS } }],
      wait: { store: 'choice', expect: 'choice' },
      transitions: [
        { when: { '==': [{ var: 'choice' }, 'opening_hours'] }, to: 'state_1' },
        { when: { '==': [{ var: 'choice' }, 'talk_to_us'] }, to: 'state_2' },
      ],
    },
    state_1: { actions: [{ send: { text: SIX_STATE_TEXTS.state_1 } }], next: 'state_4' },
    state_2: {
      actions: [{ send: { text: SIX_STATE_TEXTS.state_2 } }],
      wait: { store: 'email' },
      next: 'state_3',
    },
    state_3: { actions: [{ send: { text: SIX_STATE_TEXTS.state_3 } }], next: 'state_5' },
    state_4: { actions: [{ send: { text: SIX_STATE_TEXTS.state_4 } }], end: true },
    state_5: { actions: [{ send: { text: SIX_STATE_TEXTS.state_5 } }], end: true },
  },
};

/** A person's gestures on the page, counted. Waiting for what a gesture shows is not one. */
export class Gestures {
  count = 0;
  constructor(readonly page: Page) {}

  async click(target: Locator): Promise<void> {
    this.count += 1;
    await target.click();
  }

  async fill(target: Locator, text: string): Promise<void> {
    this.count += 1;
    await target.fill(text);
  }

  async choose(target: Locator, option: string | { label: string }): Promise<void> {
    this.count += 1;
    await target.selectOption(option);
  }

  async check(target: Locator): Promise<void> {
    this.count += 1;
    await target.check();
  }

  /** A drag from `from` to the point (x, y) of the page. */
  async dragTo(from: Locator, x: number, y: number): Promise<void> {
    this.count += 1;
    await from.hover();
    await this.page.mouse.down();
    await this.page.mouse.move(x, y, { steps: 12 });
    await this.page.mouse.up();
  }
}

const graphOf = (page: Page): Locator => page.getByRole('region', { name: /Flow graph/ });
const nodeOf = (page: Page, name: string): Locator =>
  graphOf(page).getByLabel(`State ${name}`, { exact: true });

/** Waits for the side panel to show state `name`. */
async function shown(page: Page, name: string): Promise<void> {
  await details(page)
    .getByRole('heading', { name: `State ${name}` })
    .waitFor();
}

/**
 * A point of empty canvas below state `from`'s node (right, left or straight below): where a
 * drag from its handle makes a new state.
 */
async function emptyBelow(page: Page, from: string): Promise<{ x: number; y: number }> {
  const node = (await nodeOf(page, from).boundingBox())!;
  const canvas = (await graphOf(page).boundingBox())!;
  const taken = await Promise.all(
    (await graphOf(page).locator('.react-flow__node, .edge-label').all()).map((l) =>
      l.boundingBox(),
    ),
  );
  // A node is about 80 px tall: the new one, whose top centre goes where the drag ends, too.
  const clear = (x: number, y: number) =>
    taken.every(
      (b) =>
        !b || x + 130 < b.x || x - 130 > b.x + b.width || y + 100 < b.y || y - 10 > b.y + b.height,
    );
  for (const dy of [130, 90, 170]) {
    for (const dx of [160, -160, 0, 320, -320]) {
      const x = node.x + node.width / 2 + dx;
      const y = node.y + node.height + dy;
      if (x < canvas.x + 20 || x > canvas.x + canvas.width - 20) continue;
      if (y < canvas.y + 20 || y > canvas.y + canvas.height - 30) continue;
      if (clear(x, y)) return { x, y };
    }
  }
  throw new Error(`no empty canvas below state ${from}`);
}

/** A message of `text` added to the selected state. */
async function addMessage(g: Gestures, text: string): Promise<void> {
  const panel = details(g.page);
  // "Send a message" is the new action's kind unless another is chosen.
  await g.click(panel.getByRole('button', { name: 'Add action' }));
  await g.fill(panel.getByLabel('Message text', { exact: true }), text);
}

/**
 * From state `from`, a new state by a drag to empty space; the editor selects it and fits the
 * graph in view.
 */
async function dragNewState(g: Gestures, from: string, made: string): Promise<void> {
  const handle = nodeOf(g.page, from).locator('.react-flow__handle.source');
  const at = await emptyBelow(g.page, from);
  await g.dragTo(handle, at.x, at.y);
  await shown(g.page, made);
  // The view glides to fit the graph (200 ms); the next drag starts where things came to rest.
  await nodeOf(g.page, made).hover();
}

/** The six-state flow from the blank flow, by the canvas. Answers the gestures it took. */
export async function byCanvas(page: Page): Promise<number> {
  const g = new Gestures(page);
  const panel = details(page);
  await g.click(nodeOf(page, 'start'));
  await shown(page, 'start');
  await addMessage(g, SIX_STATE_TEXTS.start);
  // Buttons come two at a time; each id follows its title; the state begins to wait for the choice.
  await g.choose(panel.getByLabel('Options to press'), { label: 'Buttons (up to 3)' });
  await g.fill(panel.getByLabel('Button 1 title'), SIX_STATE_BUTTONS[0].title);
  await g.fill(panel.getByLabel('Button 2 title'), SIX_STATE_BUTTONS[1].title);

  // Each drag from start connects its next button.
  await dragNewState(g, 'start', 'state_1');
  await addMessage(g, SIX_STATE_TEXTS.state_1);
  await dragNewState(g, 'start', 'state_2');
  await addMessage(g, SIX_STATE_TEXTS.state_2);
  await g.check(panel.getByLabel("This state waits for the user's answer"));
  await g.fill(panel.getByLabel('Store the answer in variable'), 'email');

  // The thanks, its variable typed as the field's hint says ({{variable}}).
  await dragNewState(g, 'state_2', 'state_3');
  await addMessage(g, SIX_STATE_TEXTS.state_3);

  await dragNewState(g, 'state_1', 'state_4');
  await addMessage(g, SIX_STATE_TEXTS.state_4);
  await dragNewState(g, 'state_3', 'state_5');
  await addMessage(g, SIX_STATE_TEXTS.state_5);
  return g.count;
}

/**
 * The same flow by the forms alone: states added by name in the state list, ways out chosen in
 * the side panel. Answers the gestures it took.
 */
export async function byForms(page: Page): Promise<number> {
  const g = new Gestures(page);
  const panel = details(page);
  const list = page.getByRole('navigation', { name: /States/ });
  const select = async (name: string): Promise<void> => {
    // The start state's entry is named with its tag: "start start".
    await g.click(list.getByRole('button', { name: new RegExp(`^${name}( start)?$`) }));
    await shown(page, name);
  };
  for (const name of ['state_1', 'state_2', 'state_3', 'state_4', 'state_5'] as const) {
    await g.fill(page.getByLabel('New state name'), name);
    await g.click(page.getByRole('button', { name: 'Add state' }));
    await shown(page, name);
    await addMessage(g, SIX_STATE_TEXTS[name]);
    if (name === 'state_2') {
      await g.check(panel.getByLabel("This state waits for the user's answer"));
      await g.fill(panel.getByLabel('Store the answer in variable'), 'email');
    }
  }
  for (const [from, to] of [
    ['state_1', 'state_4'],
    ['state_2', 'state_3'],
    ['state_3', 'state_5'],
  ] as const) {
    await select(from);
    await g.choose(panel.getByLabel('Way out'), { label: 'go on to a state' });
    await g.choose(panel.getByLabel('Next state'), to);
  }
  await select('start');
  await addMessage(g, SIX_STATE_TEXTS.start);
  await g.choose(panel.getByLabel('Options to press'), { label: 'Buttons (up to 3)' });
  await g.fill(panel.getByLabel('Button 1 title'), SIX_STATE_BUTTONS[0].title);
  await g.fill(panel.getByLabel('Button 2 title'), SIX_STATE_BUTTONS[1].title);
  await g.choose(panel.getByLabel('Way out'), { label: 'branch (first matching transition)' });
  for (const [i, to] of ['state_1', 'state_2'].entries()) {
    const n = i + 1;
    if (i > 0) await g.click(panel.getByRole('button', { name: 'Add transition' }));
    await g.choose(panel.getByLabel(`Transition ${n} condition`), {
      label: 'the answer is an option',
    });
    const button = SIX_STATE_BUTTONS[i]!;
    await g.choose(panel.getByLabel(`Transition ${n} option`), button.id);
    await g.choose(panel.getByLabel(`Transition ${n} goes to`), to);
  }
  return g.count;
}

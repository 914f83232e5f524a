/**
 * The flow editor's pure edits: adding, renaming and deleting a state keep every reference
 * consistent, and never change the flow they were given.
 */
import { expect } from 'chai';
import {
  addState,
  connect,
  deleteState,
  duplicateState,
  freeStateName,
  placeState,
  referencesTo,
  renameState,
  stateNameProblem,
} from '../../console/src/pages/flow-editor/flow-edits.ts';
import { newAction } from '../../console/src/pages/flow-editor/action-kinds.ts';
import {
  followRenamedOptions,
  retitle,
  waitForChoice,
} from '../../console/src/pages/flow-editor/option-edits.ts';
import { flowToGraph } from '../../console/src/pages/flow-editor/flow-graph.ts';
import { omit, type Flow } from '../../console/src/pages/flow-editor/flow-types.ts';
import {
  pointerLabel,
  stateOfPointer,
} from '../../console/src/pages/flow-editor/problem-location.ts';

function sample(): Flow {
  return {
    version: 1,
    start: 'ask',
    states: {
      ask: {
        actions: [{ send: { text: 'Yes?', buttons: [{ id: 'y', title: 'Yes' }] } }],
        wait: { store: 'a', expect: 'choice', on_fail: 'done' },
        transitions: [{ when: { '==': [{ var: 'a' }, 'y'] }, to: 'done' }, { to: 'ask' }],
      },
      done: { next: 'bye' },
      bye: { end: true },
    },
  };
}

describe('flow editor edits', () => {
  it('when a state is renamed, then start, next, transitions and on_fail follow, order kept', () => {
    const flow = sample();
    const renamed = renameState(flow, 'ask', 'question');
    expect(Object.keys(renamed.states)).to.deep.equal(['question', 'done', 'bye']);
    expect(renamed.start).to.equal('question');
    expect(renamed.states.question?.transitions?.[1]?.to).to.equal('question');
    const again = renameState(renamed, 'done', 'finished');
    expect(again.states.question?.transitions?.[0]?.to).to.equal('finished');
    expect(again.states.question?.wait?.on_fail).to.equal('finished');
    expect(referencesTo(again, 'done')).to.deep.equal([]);
    expect(flow).to.deep.equal(sample());
  });

  it('when a state is deleted, then references to it go and the others stay', () => {
    const flow = sample();
    expect(referencesTo(flow, 'done')).to.deep.equal([
      { from: 'ask', kind: 'transition', index: 0 },
      { from: 'ask', kind: 'on_fail' },
    ]);
    const without = deleteState(flow, 'done');
    expect(Object.keys(without.states)).to.deep.equal(['ask', 'bye']);
    expect(without.states.ask?.transitions).to.deep.equal([{ to: 'ask' }]);
    expect(without.states.ask?.wait).to.deep.equal({ store: 'a', expect: 'choice' });
    expect(flow).to.deep.equal(sample());
  });

  it('when the only transition or the next goes, then the key goes too (validation names the dead end)', () => {
    const without = deleteState(sample(), 'bye');
    expect(without.states.done).to.deep.equal({});
  });

  it('when a state is added, then it ends the conversation and no other state changes', () => {
    const flow = sample();
    const name = freeStateName(flow);
    expect(name).to.equal('state_1');
    const added = addState(flow, name);
    expect(added.states.state_1).to.deep.equal({ end: true });
    expect({ ...added.states, state_1: undefined }).to.deep.equal({
      ...flow.states,
      state_1: undefined,
    });
  });

  it('when states are connected by a drag, then an end goes on, a next becomes transitions and transitions get one more; twice changes nothing', () => {
    const flow = sample();
    expect(connect(flow, 'bye', 'ask').states.bye).to.deep.equal({ next: 'ask' });
    expect(connect(flow, 'done', 'ask').states.done).to.deep.equal({
      transitions: [{ to: 'bye' }, { to: 'ask' }],
    });
    expect(connect(flow, 'ask', 'bye').states.ask!.transitions).to.deep.equal([
      ...flow.states.ask!.transitions!,
      { to: 'bye' },
    ]);
    expect(connect(flow, 'done', 'bye')).to.equal(flow);
    expect(connect(flow, 'done', 'nowhere')).to.equal(flow);
    expect(flow).to.deep.equal(sample());
  });

  it('when a state is duplicated or pasted, then the copy has its content under a free name and nothing points at it', () => {
    const flow = sample();
    const copy = freeStateName(flow, 'ask_copy');
    expect(copy).to.equal('ask_copy');
    const duplicated = duplicateState(flow, 'ask', copy);
    expect(duplicated.states.ask_copy).to.deep.equal(flow.states.ask);
    expect(duplicated.states.ask_copy).to.not.equal(flow.states.ask);
    expect(freeStateName(duplicated, 'ask_copy')).to.equal('ask_copy_1');
    const pasted = duplicateState(flow, 'elsewhere', 'pasted', { end: true });
    expect(pasted.states.pasted).to.deep.equal({ end: true });
    expect(duplicateState(flow, 'ask', 'done')).to.equal(flow);
  });

  it('when a name is taken or malformed, then it is refused with a reason', () => {
    const flow = sample();
    expect(stateNameProblem(flow, 'done')).to.match(/exists already/);
    expect(stateNameProblem(flow, 'done', 'done')).to.equal(null);
    for (const bad of ['', '1x', 'a-b', '__proto__', 'x'.repeat(65)]) {
      expect(stateNameProblem(flow, bad), bad).to.match(/letters, digits/);
    }
    expect(stateNameProblem(flow, 'new_state')).to.equal(null);
  });

  it('when a problem points into a state, then its state and a readable path come out', () => {
    expect(stateOfPointer('/states/menu/transitions/1/to')).to.equal('menu');
    expect(stateOfPointer('/states/a~1b')).to.equal('a/b');
    expect(stateOfPointer('/start')).to.equal(null);
    expect(pointerLabel('/states/menu/transitions/1/to')).to.equal('menu › transitions › 1 › to');
  });
});

describe('flow editor: new actions', () => {
  it('when a handoff step is added, then its fallback is the flow’s start state, not a made-up name', () => {
    const action = newAction('handoff', 'welcome');
    expect(action).to.deep.include({
      handoff: { message: 'A person will answer you shortly.', fallback: 'welcome' },
    });
  });
});

describe('flow editor: states placed by dragging', () => {
  it('when a state is placed, renamed and deleted, then its place is kept in layout, follows the rename and goes with it', () => {
    const flow = sample();
    const placed = placeState(flow, 'done', { x: 10.4, y: -20.6 });
    expect(placed.layout).to.deep.equal({ done: { x: 10, y: -21 } });
    expect(placed.states).to.deep.equal(flow.states);
    expect(placeState(flow, 'nowhere', { x: 1, y: 1 })).to.equal(flow);
    const renamed = renameState(placed, 'done', 'finished');
    expect(renamed.layout).to.deep.equal({ finished: { x: 10, y: -21 } });
    expect(deleteState(renamed, 'finished')).to.not.have.property('layout');
    const two = placeState(placed, 'bye', { x: 0, y: 0 });
    expect(deleteState(two, 'done').layout).to.deep.equal({ bye: { x: 0, y: 0 } });
  });

  it('when a flow has a layout, then its placed states are drawn there and the others by the automatic layout', () => {
    const flow = placeState(sample(), 'bye', { x: 900, y: 40 });
    const auto = flowToGraph(sample());
    const graph = flowToGraph(flow);
    const at = (g: typeof graph, id: string) => g.nodes.find((n) => n.id === id)!.position;
    expect(at(graph, 'bye')).to.deep.equal({ x: 900, y: 40 });
    expect(at(graph, 'ask')).to.deep.equal(at(auto, 'ask'));
  });
});

describe('flow editor: a menu in a few gestures', () => {
  const menu = (): Flow => ({
    version: 1,
    start: 'menu',
    states: {
      menu: {
        actions: [
          {
            send: {
              text: 'Pick one',
              buttons: [
                { id: 'hours', title: 'Hours' },
                { id: 'human', title: 'A person' },
              ],
            },
          },
        ],
        wait: { store: 'choice', expect: 'choice' },
        end: true,
      },
      a: { end: true },
      b: { end: true },
      c: { end: true },
    },
  });

  it('when a state that offers options is connected by drags, then each drag takes its next option in order, then plain ways out', () => {
    let flow = connect(menu(), 'menu', 'a');
    expect(flow.states.menu).to.not.have.property('end');
    flow = connect(connect(flow, 'menu', 'b'), 'menu', 'c');
    expect(flow.states.menu!.transitions).to.deep.equal([
      { when: { '==': [{ var: 'choice' }, 'hours'] }, to: 'a' },
      { when: { '==': [{ var: 'choice' }, 'human'] }, to: 'b' },
      { to: 'c' },
    ]);
  });

  it('when a state begins to offer buttons and waits for nothing, then it waits for the choice; a wait of its own is kept', () => {
    const plain = { actions: [{ send: { text: 'Hi' } }], end: true as const };
    const offering = {
      ...plain,
      actions: [{ send: { text: 'Hi', buttons: [{ id: 'x', title: 'X' }] } }],
    };
    expect(waitForChoice(plain, offering).wait).to.deep.equal({
      store: 'choice',
      expect: 'choice',
    });
    const waiting = { ...offering, wait: { store: 'pick' } };
    expect(waitForChoice(plain, waiting)).to.equal(waiting);
    // Already offering before the edit (the operator may have removed the wait): left alone.
    expect(waitForChoice(offering, { ...offering })).to.not.have.property('wait');
  });

  it('when a button is retitled, then an id the editor gave follows the title, and one typed by hand, taken or empty does not', () => {
    const given = [
      { id: 'option_1', title: 'Option 1' },
      { id: 'hours', title: 'Hours' },
    ];
    expect(retitle(given, 0, 'Crème brûlée!')[0]).to.deep.equal({
      id: 'creme_brulee',
      title: 'Crème brûlée!',
    });
    expect(retitle(given, 1, 'Opening hours')[1]!.id).to.equal('opening_hours');
    expect(retitle([{ id: 'mine', title: 'Hours' }], 0, 'Days')[0]!.id).to.equal('mine');
    expect(retitle(given, 0, 'Hours')[0]!.id).to.equal('option_1');
    expect(retitle(given, 0, '!!!')[0]!.id).to.equal('option_1');
  });

  it('when a state that offers options already goes on by next or always, then a drag puts the option’s transition first, so it can be taken', () => {
    const flow = menu();
    flow.states.menu = { ...omit(flow.states.menu!, 'end'), next: 'a' };
    const connected = connect(flow, 'menu', 'b').states.menu!;
    expect(connected).to.not.have.property('next');
    expect(connected.transitions).to.deep.equal([
      { when: { '==': [{ var: 'choice' }, 'hours'] }, to: 'b' },
      { to: 'a' },
    ]);
  });

  it('when a button’s id changes, then the transitions that tested it test the new id; other options and conditions stay', () => {
    const before = menu().states.menu!;
    const wired = {
      ...omit(before, 'end'),
      transitions: [
        { when: { '==': [{ var: 'choice' }, 'hours'] }, to: 'a' },
        { when: { '==': [{ var: 'choice' }, 'human'] }, to: 'b' },
        { to: 'c' },
      ],
    };
    const send = (wired.actions![0] as { send: { text: string; buttons: object[] } }).send;
    const after = {
      ...wired,
      actions: [
        {
          send: {
            ...send,
            buttons: [
              { id: 'opening_hours', title: 'Opening hours' },
              { id: 'human', title: 'A person' },
            ],
          },
        },
      ],
    };
    expect(followRenamedOptions(wired, after).transitions).to.deep.equal([
      { when: { '==': [{ var: 'choice' }, 'opening_hours'] }, to: 'a' },
      { when: { '==': [{ var: 'choice' }, 'human'] }, to: 'b' },
      { to: 'c' },
    ]);
    expect(followRenamedOptions(wired, wired)).to.equal(wired);
  });

  it('when a state begins to offer a language choice, then it gets no wait of its own (the choice waits by itself)', () => {
    const plain = { actions: [{ send: { text: 'Hi' } }], end: true as const };
    const language = {
      ...plain,
      actions: [
        {
          choose_language: {
            prompt: 'Language?',
            options: [
              { code: 'en', title: 'English' },
              { code: 'de', title: 'Deutsch' },
            ],
          },
        },
      ],
    };
    expect(waitForChoice(plain, language)).to.not.have.property('wait');
  });

  it('when a button’s title is cleared and typed anew, or its editor-given id was option_3 in second place, then the id follows the new title', () => {
    const cleared = retitle([{ id: 'yes', title: 'Yes' }], 0, '');
    expect(cleared[0]).to.deep.equal({ id: 'yes', title: '' });
    expect(retitle(cleared, 0, 'No')[0]!.id).to.equal('no');
    const shifted = [
      { id: 'a', title: 'A' },
      { id: 'option_3', title: 'Option 3' },
    ];
    expect(retitle(shifted, 1, 'Later')[1]!.id).to.equal('later');
  });
});

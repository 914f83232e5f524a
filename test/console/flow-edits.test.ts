/**
 * The flow editor's pure edits: adding, renaming and deleting a state keep every reference
 * consistent, and never change the flow they were given.
 */
import { expect } from 'chai';
import {
  addState,
  deleteState,
  freeStateName,
  referencesTo,
  renameState,
  stateNameProblem,
} from '../../console/src/pages/flow-editor/flow-edits.ts';
import type { Flow } from '../../console/src/pages/flow-editor/flow-types.ts';
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

  it('when a state is added from one without a way out, then that one leads to it', () => {
    const flow = sample();
    const name = freeStateName(flow);
    expect(name).to.equal('state_1');
    const added = addState(flow, name, 'bye');
    expect(added.states.state_1).to.deep.equal({ end: true });
    expect(added.states.bye).to.deep.equal({ next: 'state_1' });
    expect(addState(flow, 'x', 'ask').states.ask).to.deep.equal(flow.states.ask);
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

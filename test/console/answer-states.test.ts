/** The states "Write to this user" offers for the answer (console/src/components/answer-states.ts). */
import { expect } from 'chai';
import { answerStates } from '../../console/src/components/answer-states.ts';

describe('console: the states an answer may go to', () => {
  it('when a flow has states with and without a wait, then only those that wait are offered, by name', () => {
    const flow = {
      start: 'menu',
      states: {
        menu: { actions: [], wait: { store: 'pick' } },
        confirm: { wait: { store: 'answer', expect: 'text' } },
        done: { actions: [], end: true },
      },
    };
    expect(answerStates(flow)).to.deep.equal(['confirm', 'menu']);
  });

  it('when there is no flow, or it has no states, then nothing is offered', () => {
    for (const flow of [undefined, null, {}, { states: [] }, { states: 'x' }]) {
      expect(answerStates(flow), JSON.stringify(flow)).to.deep.equal([]);
    }
  });
});

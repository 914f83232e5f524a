/** Finding states by name or by the texts they hold (`state-search.ts`). */
import { expect } from 'chai';
import { findStates } from '../../console/src/pages/flow-editor/state-search.ts';
import { stateOrder } from '../../console/src/pages/flow-editor/flow-graph.ts';
import type { Flow } from '../../console/src/pages/flow-editor/flow-types.ts';

const flow: Flow = {
  version: 1,
  start: 'welcome',
  states: {
    welcome: { actions: [{ send: { text: 'Hello! Opening hours or repairs?' } }], next: 'hours' },
    hours: { actions: [{ send: { text: 'We are open 9 to 5.' } }], end: true },
    repair: {
      actions: [{ http: { method: 'GET', url: 'https://api.example/slots', store: 'slots' } }],
      end: true,
    },
  },
};

describe('flow editor: finding states', () => {
  it('when words are searched, then the states whose name or any text holds them come back in order, whatever the case', () => {
    expect(findStates(flow, '')).to.deep.equal(['welcome', 'hours', 'repair']);
    expect(findStates(flow, 'HOURS')).to.deep.equal(['welcome', 'hours']);
    expect(findStates(flow, 'api.example')).to.deep.equal(['repair']);
    expect(findStates(flow, '  open 9 ')).to.deep.equal(['hours']);
    expect(findStates(flow, 'nothing like it')).to.deep.equal([]);
  });

  it('when the words are only a key of the state (send, text), then they find nothing', () => {
    expect(findStates(flow, 'actions')).to.deep.equal([]);
  });
});

describe('flow editor: the order of the state list', () => {
  it('when the flow’s keys come back in another order (as Postgres keeps them), then the states read in the same order: from the start along the ways out, the rest by name', () => {
    const scrambled: Flow = {
      version: 1,
      start: 'welcome',
      states: {
        zeta: { end: true },
        repair: flow.states.repair!,
        hours: flow.states.hours!,
        alpha: { next: 'zeta' },
        welcome: flow.states.welcome!,
      },
    };
    expect(stateOrder(scrambled)).to.deep.equal(['welcome', 'hours', 'alpha', 'repair', 'zeta']);
    expect(
      stateOrder({
        ...scrambled,
        states: Object.fromEntries(Object.entries(scrambled.states).reverse()),
      }),
    ).to.deep.equal(stateOrder(scrambled));
  });
});

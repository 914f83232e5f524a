/** Finding states by name or by the texts they hold (`state-search.ts`). */
import { expect } from 'chai';
import { findStates } from '../../console/src/pages/flow-editor/state-search.ts';
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

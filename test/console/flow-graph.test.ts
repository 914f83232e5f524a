/**
 * The flow editor's pure graph module: states become nodes, ways out become labelled edges, and
 * the layered layout places every state apart, also for a 200-state flow.
 */
import { expect } from 'chai';
import { flowToGraph } from '../../console/src/pages/flow-editor/flow-graph.ts';
import { conditionLabel } from '../../console/src/pages/flow-editor/condition-text.ts';
import type { Flow, FlowState } from '../../console/src/pages/flow-editor/flow-types.ts';
import { problemsByState } from '../../console/src/pages/flow-editor/problem-location.ts';
import { stateSummary } from '../../console/src/pages/flow-editor/state-summary.ts';
import { chainFlow } from './flow-fixtures.ts';

const shop: Flow = {
  version: 1,
  start: 'menu',
  states: {
    menu: {
      actions: [
        {
          send: {
            text: 'How can I help?',
            buttons: [
              { id: 'book', title: 'Book a repair' },
              { id: 'ask', title: 'Ask a question' },
            ],
          },
        },
      ],
      wait: { store: 'topic', expect: 'choice', on_fail: 'bye' },
      transitions: [
        { when: { '==': [{ var: 'topic' }, 'book'] }, to: 'book' },
        { when: { '>=': [{ var: 'bikes' }, 1] }, to: 'ask' },
        { to: 'bye' },
      ],
    },
    book: {
      actions: [{ http: { method: 'POST', url: 'https://x.example/b', store: 'r' } }],
      next: 'bye',
    },
    ask: { transitions: [{ to: 'missing' }] },
    bye: { actions: [{ send: { text: 'Bye' } }], end: true },
  },
};

describe('flow editor graph', () => {
  it('when a flow has four states, then there is one node per state and the start is marked', () => {
    const { nodes } = flowToGraph(shop);
    expect(nodes.map((n) => n.id)).to.deep.equal(['menu', 'book', 'ask', 'bye']);
    expect(nodes.filter((n) => n.data.isStart).map((n) => n.id)).to.deep.equal(['menu']);
  });

  it('when states have next, transitions and on_fail, then each is an edge with its label', () => {
    const { edges } = flowToGraph(shop);
    const labels = edges.map((e) => `${e.source}>${e.target}:${e.label ?? ''}`);
    expect(labels).to.have.members([
      'menu>book:“Book a repair”',
      'menu>ask:bikes >= 1',
      'menu>bye:else',
      'menu>bye:on fail',
      'book>bye:',
    ]);
  });

  it('when a transition names no state, then it gets no edge (validation reports it on the node)', () => {
    const { edges } = flowToGraph(shop);
    expect(edges.filter((e) => e.source === 'ask')).to.deep.equal([]);
  });

  it('when problems name states, then each node counts its own', () => {
    const problems = problemsByState([
      { path: '/states/ask/transitions/0/to', message: 'names no state ("missing")' },
      { path: '/states/ask', message: 'x' },
      { path: '/start', message: 'y' },
    ]);
    const { nodes } = flowToGraph(shop, problems);
    expect(nodes.map((n) => n.data.problems)).to.deep.equal([0, 0, 2, 0]);
  });

  it('when the JSON is not a flow at all, then the graph is empty instead of failing', () => {
    for (const value of [null, 3, [], { states: 'x' }, { states: { a: 1 } }]) {
      expect(flowToGraph(value).nodes).to.deep.equal([]);
    }
  });

  it('when a state follows another, then it is placed in a row further down', () => {
    const { nodes } = flowToGraph(shop);
    const y = new Map(nodes.map((n) => [n.id, n.position.y]));
    expect(y.get('book')).to.be.greaterThan(y.get('menu') ?? Infinity);
    expect(y.get('bye')).to.be.greaterThan(y.get('menu') ?? Infinity);
  });

  it('when a flow has 200 states, then every state gets its own position', () => {
    const { nodes, edges } = flowToGraph(chainFlow(200));
    expect(nodes).to.have.length(200);
    expect(edges.length).to.be.greaterThan(200);
    const spots = new Set(nodes.map((n) => `${n.position.x},${n.position.y}`));
    expect(spots.size).to.equal(200);
  });

  it('when one state fans out to 199, then the rows wrap at 8 states and no two overlap', () => {
    const states: Flow['states'] = { hub: { transitions: [] } };
    for (let i = 0; i < 199; i++) {
      states.hub?.transitions?.push({ when: { '==': [{ var: 'n' }, i] }, to: `s${i}` });
      states[`s${i}`] = { end: true };
    }
    const { nodes } = flowToGraph({ version: 1, start: 'hub', states });
    const rows = new Map<number, number>();
    for (const n of nodes) rows.set(n.position.y, (rows.get(n.position.y) ?? 0) + 1);
    expect(Math.max(...rows.values())).to.equal(8);
    expect(rows.size).to.equal(1 + Math.ceil(199 / 8));
    expect(new Set(nodes.map((n) => `${n.position.x},${n.position.y}`)).size).to.equal(200);
  });

  it('when a transition tests an intent, then its label says what the user means', () => {
    const state = {
      wait: { store: 'note' },
      transitions: [{ when: { intent: 'refund' }, to: 'refund' }, { to: 'done' }],
    } as unknown as FlowState;
    expect(conditionLabel(state, 0)).to.equal('means refund');
    expect(conditionLabel(state, 1)).to.equal('else');
  });

  it('when a condition is nested, then the label writes it out and cuts it at 40 characters', () => {
    const state = {
      transitions: [
        {
          when: {
            and: [{ '!!': [{ var: 'r.error' }] }, { or: [{ '<': [{ var: 'n' }, 2] }, true] }],
          },
          to: 'a',
        },
        {
          when: { in: [{ var: 'city' }, ['Berlin', 'Paris', 'Lisbon', 'Madrid', 'Rome']] },
          to: 'b',
        },
      ],
    };
    expect(conditionLabel(state, 0)).to.equal('!!r.error and (n < 2 or true)');
    expect(conditionLabel(state, 1)).to.have.length(40);
    expect(conditionLabel(state, 1).endsWith('…')).to.be.true;
  });

  it('when a state sends, waits and ends, then its summary says so in that order', () => {
    expect(stateSummary(shop.states.menu ?? {})).to.deep.equal([
      'says: How can I help? [2 buttons]',
      'waits: topic (choice)',
    ]);
    expect(stateSummary(shop.states.bye ?? {})).to.deep.equal(['says: Bye', 'end']);
  });
});

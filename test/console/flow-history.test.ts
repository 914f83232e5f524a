/**
 * The flow editor's undo and redo (`console/src/pages/flow-editor/flow-history.ts`): each edit a
 * step, typing into one value one step, undo and redo exact.
 */
import { expect } from 'chai';
import {
  COALESCE_MS,
  MAX_STEPS,
  onlyChange,
  record,
  redo,
  startHistory,
  undo,
} from '../../console/src/pages/flow-editor/flow-history.ts';

const flow = (text: string, extra: Record<string, unknown> = {}) => ({
  start: 'a',
  states: { a: { actions: [{ send: { text } }] }, ...extra },
});

describe('flow editor: undo and redo', () => {
  it('when edits are undone and redone, then each step gives back exactly the flow it had', () => {
    const first = flow('hi');
    let h = startHistory<unknown>(first);
    const second = flow('hi', { b: { end: true } });
    const third = { ...second, start: 'b' };
    h = record(h, second, 0);
    h = record(h, third, 5000);
    h = undo(h);
    expect(h.present).to.deep.equal(second);
    h = undo(h);
    expect(h.present).to.deep.equal(first);
    expect(undo(h)).to.equal(h);
    h = redo(redo(h));
    expect(h.present).to.deep.equal(third);
    expect(redo(h)).to.equal(h);
  });

  it('when typing changes one value again and again within a second, then it is one step; a pause or another value starts a new one', () => {
    let h = startHistory<unknown>(flow(''));
    h = record(h, flow('H'), 0);
    h = record(h, flow('He'), 100);
    h = record(h, flow('Hello'), 300);
    expect(h.past).to.have.length(1);
    h = record(h, flow('Hello!'), 300 + COALESCE_MS);
    expect(h.past).to.have.length(2);
    h = record(h, { ...flow('Hello!'), start: 'b' }, 300 + COALESCE_MS + 10);
    expect(h.past).to.have.length(3);
    expect(undo(undo(undo(h))).present).to.deep.equal(flow(''));
  });

  it('when an edit follows an undo, then what was undone cannot be redone; an edit that changes nothing is no step', () => {
    let h = startHistory<unknown>(flow('a'));
    h = record(h, flow('b'), 0);
    h = undo(h);
    h = record(h, { ...flow('a'), start: 'x' }, 5000);
    expect(h.future).to.deep.equal([]);
    expect(record(h, { ...flow('a'), start: 'x' }, 9000)).to.equal(h);
  });

  it('when more than MAX_STEPS edits are made, then the oldest are forgotten', () => {
    let h = startHistory<unknown>(0);
    for (let i = 1; i <= MAX_STEPS + 5; i += 1) h = record(h, { n: i, m: i }, i * 5000);
    expect(h.past).to.have.length(MAX_STEPS);
  });

  it('when two flows differ, then only a single changed value is named', () => {
    expect(onlyChange(flow('a'), flow('b'))).to.equal('/states/a/actions/0/send/text');
    expect(onlyChange(flow('a'), flow('a'))).to.equal(null);
    expect(onlyChange(flow('a'), flow('a', { b: {} }))).to.equal(null);
    expect(onlyChange({ x: 1, y: 1 }, { x: 2, y: 2 })).to.equal(null);
    expect(onlyChange({ x: 1 }, { x: 'one' })).to.equal(null);
  });
});

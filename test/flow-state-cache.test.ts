/** The state cache of `flow` is bounded in bytes as well as in entries. */
import { expect } from 'chai';
import { StateCache } from '../src/flow/state-cache.ts';
import type { StoredState } from '../src/flow/state-store.ts';

function stored(data: string): StoredState {
  return { state: { state: 's', vars: { data } }, version: 1, recentTurns: [], outbox: [] };
}
const sizeOf = (s: StoredState) => Buffer.byteLength(JSON.stringify(s.state));

describe('flow state cache', () => {
  it('when 1000 conversations each store 100 kB, then the cache keeps at most its byte bound and the most recent entries', () => {
    const cache = new StateCache(10_000, 8 * 1024 * 1024);
    const big = 'x'.repeat(100_000);
    for (let i = 0; i < 1000; i += 1) {
      const state = stored(big);
      cache.set(`c${i}`, state, sizeOf(state));
      expect(cache.bytes).to.be.at.most(8 * 1024 * 1024);
    }
    expect(cache.size).to.be.within(70, 84);
    expect(cache.get('c999')).to.not.equal(undefined);
    expect(cache.get('c0')).to.equal(undefined);
  });

  it('when an entry is replaced or deleted, then its bytes are no longer counted', () => {
    const cache = new StateCache(10, 1024 * 1024);
    cache.set('a', stored('x'.repeat(1000)), 1000);
    cache.set('a', stored('x'), 10);
    cache.set('b', stored('x'), 10);
    cache.delete('b');
    expect(cache.size).to.equal(1);
    expect(cache.bytes).to.equal(10 + 256);
  });

  it('when one entry is larger than the whole bound, then it is not kept and the others stay', () => {
    const cache = new StateCache(10, 10_000);
    cache.set('small', stored('x'), 100);
    cache.set('huge', stored('x'), 20_000);
    expect(cache.get('huge')).to.equal(undefined);
    expect(cache.get('small')).to.not.equal(undefined);
  });

  it('when the byte bound is 0, then nothing is kept', () => {
    const cache = new StateCache(10, 0);
    cache.set('a', stored('x'), 1);
    expect(cache.size).to.equal(0);
  });

  it('when more conversations than the entry bound are stored, then the least recently used go first', () => {
    const cache = new StateCache(2, 1024 * 1024);
    cache.set('a', stored('a'), 10);
    cache.set('b', stored('b'), 10);
    cache.get('a');
    cache.set('c', stored('c'), 10);
    expect([cache.get('a'), cache.get('b'), cache.get('c')].map(Boolean)).to.deep.equal([
      true,
      false,
      true,
    ]);
  });
});

/**
 * A live event's refresh reads again with a request sent after the event, even while the query's
 * first read is still under way (which `invalidateQueries` alone would join, keeping the answer
 * that read got before the change). The queries here are TanStack Query's own, watched by an
 * observer as a mounted page would (`@tanstack/query-core`, what `@tanstack/react-query` runs on,
 * without React); the "server" is a list of reads answered by hand.
 */
import { QueryClient, QueryObserver } from '@tanstack/query-core';
import { expect } from 'chai';
import { readAgain } from '../../console/src/api/read-again.ts';

/** A query whose reads are answered by hand: each read gets the state as it was when it left. */
function watchedQuery() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  let state = 'none';
  const pending: (() => void)[] = [];
  const queryFn = () => {
    const seen = state;
    return new Promise<string>((resolve) => pending.push(() => resolve(seen)));
  };
  const observer = new QueryObserver(client, { queryKey: ['conversation', 'c1'], queryFn });
  const unsubscribe = observer.subscribe(() => {});
  const answerAll = async () => {
    while (pending.length > 0) pending.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    client,
    observer,
    change: (next: string) => (state = next),
    reads: () => pending.length,
    answerAll,
    /** Calls `readAgain`, answers every read it led to, and gives the data shown at the end. */
    readAgainAnswered: async (): Promise<unknown> => {
      const done = readAgain(client, ['conversation', 'c1']);
      // The cancel settles first; the read that follows is sent on the next turn of the loop.
      await new Promise((resolve) => setImmediate(resolve));
      await answerAll();
      await done;
      return observer.getCurrentResult().data;
    },
    close: () => {
      unsubscribe();
      client.clear();
    },
  };
}

describe('console: reading a query again after a live event', () => {
  it('when the first read left before the change, then readAgain sends another and the change is shown', async () => {
    const q = watchedQuery();
    expect(q.reads()).to.equal(1); // The first read, under way.
    q.change('main_menu'); // The reply's state is stored, and its event arrives.
    expect(await q.readAgainAnswered()).to.equal('main_menu');
    q.close();
  });

  it('when invalidateQueries alone is asked instead, then it joins the first read and keeps its older answer (why readAgain exists)', async () => {
    const q = watchedQuery();
    q.change('main_menu');
    const done = q.client.invalidateQueries({ queryKey: ['conversation', 'c1'] });
    expect(q.reads()).to.equal(1);
    await q.answerAll();
    await done;
    expect(q.observer.getCurrentResult().data).to.equal('none');
    q.close();
  });

  it('when the query already has data and a refresh is under way, then readAgain still ends with a read sent after the change', async () => {
    const q = watchedQuery();
    await q.answerAll();
    void q.observer.refetch(); // A periodic refresh, under way.
    q.change('about');
    expect(await q.readAgainAnswered()).to.equal('about');
    q.close();
  });
});

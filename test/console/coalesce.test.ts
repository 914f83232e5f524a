/**
 * Live refreshes are coalesced: the first ask runs at once, asks within the wait run once at its
 * end, and a cancelled wait runs nothing. The timer is a stand-in, so nothing here waits.
 */
import { expect } from 'chai';
import { coalesce, type Timers } from '../../console/src/pages/conversations/coalesce.ts';

function manualTimers(): Timers & { fire: () => void; pending: () => number } {
  let queue: (() => void)[] = [];
  return {
    setTimeout: (run) => {
      queue.push(run);
      return run;
    },
    clearTimeout: (handle) => {
      queue = queue.filter((run) => run !== handle);
    },
    fire: () => {
      const due = queue;
      queue = [];
      for (const run of due) run();
    },
    pending: () => queue.length,
  };
}

describe('coalesced live refresh', () => {
  it('when many events come within the wait, then one run now and one at its end', () => {
    const timers = manualTimers();
    let runs = 0;
    const refresh = coalesce(() => runs++, 1000, timers);
    refresh.trigger();
    refresh.trigger();
    refresh.trigger();
    expect(runs).to.equal(1);
    timers.fire();
    expect(runs).to.equal(2);
    timers.fire();
    expect(runs).to.equal(2);
    expect(timers.pending()).to.equal(0);
  });

  it('when no event comes within the wait, then nothing runs at its end', () => {
    const timers = manualTimers();
    let runs = 0;
    const refresh = coalesce(() => runs++, 1000, timers);
    refresh.trigger();
    timers.fire();
    expect(runs).to.equal(1);
    refresh.trigger();
    expect(runs).to.equal(2);
  });

  it('when cancelled during a wait, then the asked run never happens', () => {
    const timers = manualTimers();
    let runs = 0;
    const refresh = coalesce(() => runs++, 1000, timers);
    refresh.trigger();
    refresh.trigger();
    refresh.cancel();
    timers.fire();
    expect(runs).to.equal(1);
  });
});

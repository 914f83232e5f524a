/**
 * Runs a refresh at most once per `waitMs` however many live events ask for it, and always once
 * after the last ask: a busy bot sends many `message` events a second, and each refetching the
 * list would cost more than it shows. Plain TypeScript, the timer injectable for tests.
 */

export interface Timers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (run, ms) => globalThis.setTimeout(run, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface Coalescer {
  /** Asks for a run: now when none ran in the last `waitMs`, else once at the end of it. */
  trigger: () => void;
  /** Drops a pending run (the page went away). */
  cancel: () => void;
}

/** @param waitMs least time between two runs, in milliseconds. */
export function coalesce(run: () => void, waitMs: number, timers: Timers = realTimers): Coalescer {
  let handle: unknown;
  let waiting = false;
  let askedMeanwhile = false;
  const open = () => {
    waiting = true;
    handle = timers.setTimeout(() => {
      waiting = false;
      if (askedMeanwhile) {
        askedMeanwhile = false;
        run();
        open();
      }
    }, waitMs);
  };
  return {
    trigger: () => {
      if (waiting) {
        askedMeanwhile = true;
        return;
      }
      run();
      open();
    },
    cancel: () => {
      if (waiting) timers.clearTimeout(handle);
      waiting = false;
      askedMeanwhile = false;
    },
  };
}

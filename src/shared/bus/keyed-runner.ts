import { FairSlots } from './fair-slots.ts';

/** Options of a `KeyedRunner`. */
export interface KeyedRunnerOptions {
  /** Tasks running at once, in all. */
  concurrency: number;
  /** Tasks of one bot running at once (see `fair-slots.ts`). @defaultValue `concurrency` */
  perBot?: number;
}

/** The bot of tasks given without one. */
const NO_BOT = '';

/**
 * Runs tasks with a concurrency limit, one at a time per key: tasks that share a key start in the
 * order they were given and never overlap; tasks with different keys (or none) run side by side.
 * This is what keeps one conversation's messages in order inside one process. Slots are shared
 * fairly between bots (`FairSlots`): one bot runs at most `perBot` tasks at once, and bots waiting
 * for a slot take turns.
 */
export class KeyedRunner {
  readonly #slots: FairSlots;
  readonly #tails = new Map<string, Promise<void>>();
  #scheduled = 0;
  #idle: (() => void)[] = [];

  constructor(options: KeyedRunnerOptions) {
    this.#slots = new FairSlots({
      concurrency: options.concurrency,
      perBot: options.perBot ?? options.concurrency,
    });
  }

  /** Tasks running now. */
  get active(): number {
    return this.#slots.active;
  }

  /** Resolves once every task given so far has finished. */
  idle(): Promise<void> {
    if (this.#scheduled === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /**
   * Schedules `task` after the earlier tasks of `key`, in a slot of `bot`; resolves or rejects as
   * the task does.
   */
  run(key: string | undefined, task: () => Promise<void>, bot: string = NO_BOT): Promise<void> {
    this.#scheduled += 1;
    const done = (): void => {
      this.#scheduled -= 1;
      if (this.#scheduled === 0) for (const resolve of this.#idle.splice(0)) resolve();
    };
    const result = this.#schedule(key, () => this.#withSlot(bot, task));
    result.then(done, done);
    return result;
  }

  #schedule(key: string | undefined, task: () => Promise<void>): Promise<void> {
    if (key === undefined) return task();
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  async #withSlot(bot: string, task: () => Promise<void>): Promise<void> {
    await this.#slots.acquire(bot);
    try {
      await task();
    } finally {
      this.#slots.release(bot);
    }
  }
}

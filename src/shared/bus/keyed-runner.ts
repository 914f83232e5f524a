/**
 * Runs tasks with a concurrency limit, one at a time per key: tasks that share a key start in the
 * order they were given and never overlap; tasks with different keys (or none) run side by side.
 * This is what keeps one conversation's messages in order inside one process.
 */
export class KeyedRunner {
  readonly #concurrency: number;
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  readonly #tails = new Map<string, Promise<void>>();
  #scheduled = 0;
  #idle: (() => void)[] = [];

  constructor(concurrency: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
    }
    this.#concurrency = concurrency;
  }

  /** Tasks running now. */
  get active(): number {
    return this.#active;
  }

  /** Resolves once every task given so far has finished. */
  idle(): Promise<void> {
    if (this.#scheduled === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Schedules `task`; resolves or rejects as it does. */
  run(key: string | undefined, task: () => Promise<void>): Promise<void> {
    this.#scheduled += 1;
    const done = (): void => {
      this.#scheduled -= 1;
      if (this.#scheduled === 0) for (const resolve of this.#idle.splice(0)) resolve();
    };
    const result = this.#schedule(key, task);
    result.then(done, done);
    return result;
  }

  #schedule(key: string | undefined, task: () => Promise<void>): Promise<void> {
    if (key === undefined) return this.#withSlot(task);
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(() => this.#withSlot(task));
    const tail = result.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  async #withSlot(task: () => Promise<void>): Promise<void> {
    while (this.#active >= this.#concurrency) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    this.#active += 1;
    try {
      await task();
    } finally {
      this.#active -= 1;
      this.#waiting.shift()?.();
    }
  }
}

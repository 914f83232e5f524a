/**
 * Group commit: the calls made while the event loop is busy with other work are carried out
 * together, in one statement, on the next turn of the loop. Each caller still awaits its own
 * result, so nothing it does next (publishing, acknowledging) happens before its write committed.
 * Under load, handlers advance in step (one auto-pipelined Redis reply resolves many of them at
 * once), so their writes meet here; alone, a call waits for no one but one `setImmediate`.
 *
 * One batch is carried out at a time (by default): the calls made while it runs wait for it and
 * leave together as the next. Under load the batches grow instead of the statements in flight, so
 * a process holds one Postgres connection per batcher and Postgres commits fewer, larger
 * transactions. A process with no batch running adds no wait. A batch that has not ended after
 * `stallMs` stops holding the others back (its callers still wait for it): a statement stuck on a
 * dead connection must not stop every later write of the process.
 *
 * If the batch fails, each item is retried on its own, so one bad item fails only its own caller.
 */
export class Batcher<In, Out> {
  readonly #run: (items: In[]) => Promise<Out[]>;
  readonly #max: number;
  readonly #inFlight: number;
  readonly #stallMs: number;
  #queue: { item: In; resolve: (out: Out) => void; reject: (error: unknown) => void }[] = [];
  #scheduled = false;
  #running = 0;

  /**
   * @param run carries out a batch; resolves to one result per item, in order.
   * @param max items per batch at most. @defaultValue 100
   * @param inFlight batches carried out at once at most. @defaultValue 1
   * @param stallMs after this long a batch no longer counts against `inFlight`. @defaultValue 1000
   */
  constructor(run: (items: In[]) => Promise<Out[]>, max = 100, inFlight = 1, stallMs = 1000) {
    for (const [name, n] of Object.entries({ max, inFlight, stallMs })) {
      if (!Number.isInteger(n) || n < 1) throw new RangeError(`${name} must be an integer >= 1`);
    }
    this.#run = run;
    this.#max = max;
    this.#inFlight = inFlight;
    this.#stallMs = stallMs;
  }

  add(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    while (this.#queue.length > 0 && this.#running < this.#inFlight) {
      const batch = this.#queue.splice(0, this.#max);
      this.#running += 1;
      let timer: NodeJS.Timeout | undefined;
      const release = (): void => {
        if (timer === undefined) return;
        clearTimeout(timer);
        timer = undefined;
        this.#running -= 1;
        // What arrived while the batch ran has waited already: it leaves now.
        if (!this.#scheduled) this.#flush();
      };
      timer = setTimeout(release, this.#stallMs);
      timer.unref();
      void this.#carryOut(batch, release).finally(release);
    }
  }

  /** Carries out `batch`; `release` frees its slot early (before retrying its items one by one). */
  async #carryOut(
    batch: { item: In; resolve: (out: Out) => void; reject: (error: unknown) => void }[],
    release: () => void,
  ): Promise<void> {
    try {
      const outs = await this.#run(batch.map((b) => b.item));
      batch.forEach((b, i) => b.resolve(outs[i]!));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      // The retries are up to `max` statements: later batches need not wait for them.
      release();
      for (const b of batch) {
        try {
          const [out] = await this.#run([b.item]);
          b.resolve(out!);
        } catch (single) {
          b.reject(single);
        }
      }
    }
  }
}

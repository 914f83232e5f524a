/**
 * Group commit: the calls made while the event loop is busy with other work are carried out
 * together, in one statement, on the next turn of the loop. Each caller still awaits its own
 * result, so nothing it does next (publishing, acknowledging) happens before its write committed.
 * Under load, handlers advance in step (one auto-pipelined Redis reply resolves many of them at
 * once), so their writes meet here; alone, a call waits for no one but one `setImmediate`.
 *
 * If the batch fails, each item is retried on its own, so one bad item fails only its own caller.
 */
export class Batcher<In, Out> {
  readonly #run: (items: In[]) => Promise<Out[]>;
  readonly #max: number;
  #queue: { item: In; resolve: (out: Out) => void; reject: (error: unknown) => void }[] = [];
  #scheduled = false;

  /**
   * @param run carries out a batch; resolves to one result per item, in order.
   * @param max items per batch at most. @defaultValue 100
   */
  constructor(run: (items: In[]) => Promise<Out[]>, max = 100) {
    this.#run = run;
    this.#max = max;
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
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#max);
      void this.#carryOut(batch);
    }
  }

  async #carryOut(
    batch: { item: In; resolve: (out: Out) => void; reject: (error: unknown) => void }[],
  ): Promise<void> {
    try {
      const outs = await this.#run(batch.map((b) => b.item));
      batch.forEach((b, i) => b.resolve(outs[i]!));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
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

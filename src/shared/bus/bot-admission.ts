/**
 * How many of one bot's entries a consumer holds in memory at once. A partition stream mixes the
 * bots' messages, so reading on to reach one bot's entries means reading another's too; a bot
 * whose handlers hang would otherwise fill the consumer's in-flight bound with its queued entries
 * and stop the reading of everyone's. When the consumer reads on past its bound (see
 * `consumer.ts`), a bot with `perBot` entries admitted (queued or running) has its further
 * entries deferred: they stay pending in Redis (read, not acknowledged), only their ids are kept
 * here, in read order, and they are fetched again (XRANGE) as the bot's admitted entries finish.
 * A bot with deferred entries has every later entry deferred behind them, so each conversation
 * (one bot's) keeps its order.
 *
 * Bookkeeping only; the consumer does the Redis I/O.
 */

/** A deferred entry: its partition, id, and the partition tenure it was read under. */
export interface DeferredRef {
  partition: number;
  id: string;
  tenure: number;
}

export interface BotAdmissionOptions {
  /** Entries of one bot admitted (queued for a slot or running) at once. */
  perBot: number;
}

export class BotAdmission {
  readonly #perBot: number;
  /** Admitted entries per bot, including those reserved by a fetch in progress. */
  readonly #admitted = new Map<string, number>();
  /** Deferred entries per bot, oldest first. */
  readonly #deferred = new Map<string, DeferredRef[]>();
  /** `<partition>/<id>` of every deferred entry, also while it is being fetched. */
  readonly #slots = new Set<string>();
  /** Bots whose deferred entries are being fetched. */
  readonly #fetching = new Set<string>();

  constructor(options: BotAdmissionOptions) {
    if (!Number.isInteger(options.perBot) || options.perBot < 1) {
      throw new RangeError(`perBot must be a positive integer, got ${options.perBot}`);
    }
    this.#perBot = options.perBot;
  }

  /** Entries deferred now, in all (those being fetched included). */
  get deferred(): number {
    return this.#slots.size;
  }

  /** Whether this entry is deferred (pending in Redis, to be fetched again). */
  isDeferred(partition: number, id: string): boolean {
    return this.#slots.has(`${partition}/${id}`);
  }

  /**
   * Offers an entry just read. A bot with deferred entries has it deferred behind them; a bot at
   * its share too when `fair` (the consumer reads past its bound), or when `room` is false.
   * @returns true when it may be handled now (it then counts as admitted until `finished`), false
   * when it is deferred.
   */
  admit(bot: string, ref: DeferredRef, options: { fair: boolean; room: boolean }): boolean {
    const behind = this.#deferred.has(bot) || this.#fetching.has(bot);
    const atShare = this.#count(bot) >= this.#perBot;
    if (!behind && options.room && !(options.fair && atShare)) {
      this.#admitted.set(bot, this.#count(bot) + 1);
      return true;
    }
    const queue = this.#deferred.get(bot);
    if (queue) queue.push(ref);
    else this.#deferred.set(bot, [ref]);
    this.#slots.add(`${ref.partition}/${ref.id}`);
    return false;
  }

  /** Whether some bot has more than its share admitted. */
  overShare(): boolean {
    for (const count of this.#admitted.values()) if (count > this.#perBot) return true;
    return false;
  }

  /** An admitted entry of `bot` is over (acknowledged, dead-lettered or left pending). */
  finished(bot: string): void {
    const count = this.#count(bot) - 1;
    if (count > 0) this.#admitted.set(bot, count);
    else this.#admitted.delete(bot);
  }

  /**
   * The oldest deferred entries of `bot` that fit in its room now, reserved as admitted; none
   * while a fetch of its entries is in progress. End the fetch with `fetched` or `putBack`.
   */
  take(bot: string): DeferredRef[] {
    const queue = this.#deferred.get(bot);
    const room = this.#perBot - this.#count(bot);
    if (!queue || room <= 0 || this.#fetching.has(bot)) return [];
    const refs = queue.splice(0, room);
    if (queue.length === 0) this.#deferred.delete(bot);
    this.#fetching.add(bot);
    this.#admitted.set(bot, this.#count(bot) + refs.length);
    return refs;
  }

  /**
   * A fetch is over: the refs are no longer deferred; those not `started` (acknowledged
   * meanwhile, or their partition lost) give their reserved room back.
   */
  fetched(bot: string, refs: readonly DeferredRef[], started: number): void {
    for (const ref of refs) this.#slots.delete(`${ref.partition}/${ref.id}`);
    this.#fetching.delete(bot);
    for (let i = started; i < refs.length; i += 1) this.finished(bot);
  }

  /** A fetch failed: the refs go back to the head of the bot's deferred entries. */
  putBack(bot: string, refs: readonly DeferredRef[]): void {
    this.#fetching.delete(bot);
    for (let i = 0; i < refs.length; i += 1) this.finished(bot);
    const queue = this.#deferred.get(bot) ?? [];
    this.#deferred.delete(bot);
    this.#deferred.set(bot, [...refs, ...queue]);
  }

  /** Bots that have deferred entries and room to fetch some now. */
  ready(): string[] {
    return [...this.#deferred.keys()].filter(
      (bot) => !this.#fetching.has(bot) && this.#count(bot) < this.#perBot,
    );
  }

  /**
   * Forgets the deferred entries of a partition this process no longer reads: they stay pending
   * and go to its next reader with the rest.
   */
  dropPartition(partition: number): void {
    for (const [bot, queue] of this.#deferred) {
      const kept = queue.filter((ref) => ref.partition !== partition);
      for (const ref of queue) {
        if (ref.partition === partition) this.#slots.delete(`${ref.partition}/${ref.id}`);
      }
      if (kept.length === 0) this.#deferred.delete(bot);
      else this.#deferred.set(bot, kept);
    }
  }

  #count(bot: string): number {
    return this.#admitted.get(bot) ?? 0;
  }
}

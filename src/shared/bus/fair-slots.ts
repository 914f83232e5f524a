/**
 * Handler slots shared fairly between bots. A process runs at most `concurrency` handlers at once,
 * and one bot at most `perBot` of them, so a bot whose handlers hang (a flow step waiting on an
 * endpoint that never answers) holds at most `perBot` slots and the others stay free for the other
 * bots. When a slot frees, it goes to the waiting bot that holds the fewest slots, bots holding
 * as many taking turns (round robin); each bot's own requests are served first come, first served.
 *
 * Slots are not taken back from a running handler, so a bot never gets more than `perBot` slots,
 * even alone: the slots above its cap are what another bot's message finds free the moment it
 * arrives, instead of waiting out a slow handler's timeout.
 */
export interface FairSlotsOptions {
  /** Slots in all (handlers running at once). */
  concurrency: number;
  /** Slots one bot may hold at once; at most `concurrency`. */
  perBot: number;
}

export class FairSlots {
  readonly #concurrency: number;
  readonly #perBot: number;
  #active = 0;
  /** Slots held, per bot that holds any. */
  readonly #held = new Map<string, number>();
  /**
   * Bots waiting for a slot, each with its grants in request order. The map's insertion order is
   * the turn order: a bot served goes to the back.
   */
  readonly #waiting = new Map<string, (() => void)[]>();

  constructor(options: FairSlotsOptions) {
    const { concurrency, perBot } = options;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
    }
    if (!Number.isInteger(perBot) || perBot < 1) {
      throw new RangeError(`perBot must be a positive integer, got ${perBot}`);
    }
    this.#concurrency = concurrency;
    this.#perBot = Math.min(perBot, concurrency);
  }

  /** Slots held now, in all. */
  get active(): number {
    return this.#active;
  }

  /** Slots `bot` holds now. */
  heldBy(bot: string): number {
    return this.#held.get(bot) ?? 0;
  }

  /** Requests waiting for a slot, in all. */
  get waiting(): number {
    let total = 0;
    for (const queue of this.#waiting.values()) total += queue.length;
    return total;
  }

  /** Resolves once `bot` holds a slot; give it back with `release(bot)`. */
  acquire(bot: string): Promise<void> {
    return new Promise((resolve) => {
      const queue = this.#waiting.get(bot);
      if (queue) queue.push(resolve);
      else this.#waiting.set(bot, [resolve]);
      this.#dispatch();
    });
  }

  /** Gives back a slot `bot` holds. */
  release(bot: string): void {
    const held = this.heldBy(bot);
    if (held === 0) throw new Error(`release of a slot bot ${bot} does not hold`);
    if (held === 1) this.#held.delete(bot);
    else this.#held.set(bot, held - 1);
    this.#active -= 1;
    this.#dispatch();
  }

  #dispatch(): void {
    while (this.#active < this.#concurrency) {
      // The waiting bot holding the fewest slots, below its cap; among equals, the one whose turn
      // came longest ago.
      let next: string | undefined;
      let fewest = this.#perBot;
      for (const bot of this.#waiting.keys()) {
        const held = this.heldBy(bot);
        if (held < fewest) {
          next = bot;
          fewest = held;
          if (held === 0) break;
        }
      }
      if (next === undefined) return;
      const queue = this.#waiting.get(next)!;
      const grant = queue.shift()!;
      this.#waiting.delete(next);
      if (queue.length > 0) this.#waiting.set(next, queue);
      this.#held.set(next, this.heldBy(next) + 1);
      this.#active += 1;
      grant();
    }
  }
}

/**
 * Warnings that come in bursts, logged a line per burst: while Redis (or one master of a cluster)
 * is away, every callback is refused the same way, and a line with a stack per request filled the
 * log (about 700 a minute with one master down) and cost CPU when it was short. The first warning
 * of a kind logs a line without a stack; those of the same kind in the next `windowMs` are only
 * counted, and the next line of that kind says how many there were.
 */
import type { Logger } from '../shared/logger.ts';

export class BurstLog {
  readonly #logger: Logger;
  readonly #windowMs: number;
  readonly #now: () => number;
  /** Per kind: until when its lines are held back, and how many were held back since. */
  readonly #quiet = new Map<string, { until: number; held: number }>();

  constructor(logger: Logger, { windowMs = 10_000, now = Date.now } = {}) {
    this.#logger = logger;
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /** Logs `message` with `fields` unless a line of this `kind` was logged in the window. */
  warn(kind: string, fields: Record<string, unknown>, message: string): void {
    const now = this.#now();
    const quiet = this.#quiet.get(kind);
    if (quiet && now < quiet.until) {
      quiet.held += 1;
      return;
    }
    this.#logger.warn({ ...fields, held_back_before: quiet?.held ?? 0 }, message);
    this.#quiet.set(kind, { until: now + this.#windowMs, held: 0 });
  }
}

/**
 * Retention of rows that grow with use (the audit log, AUDIT_RETENTION_DAYS; analytics,
 * ANALYTICS_RETENTION_DAYS): every api process prunes rows past retention once soon after start
 * and then every `intervalMs`. The prune functions delete in batches that processes pruning
 * together share (SKIP LOCKED); 0 days keeps every row and starts nothing.
 */
import type { Knex } from '../shared/db.ts';
import type { Logger } from '../shared/logger.ts';

interface RetentionPrunerOptions {
  db: Knex;
  /** What is pruned, for the log: `audit rows`. */
  what: string;
  /** Deletes the rows older than `retentionDays`; answers how many. */
  prune: (db: Knex, retentionDays: number) => Promise<number>;
  /** Rows older than this are deleted (days); 0 keeps them forever. */
  retentionDays: number;
  /** Time between prunes (ms). @defaultValue one hour */
  intervalMs?: number;
  logger: Logger;
}

/** Deletes old rows on a timer; `stop()` waits for a prune under way. */
export class RetentionPruner {
  readonly #o: RetentionPrunerOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(options: RetentionPrunerOptions) {
    this.#o = options;
  }

  /** What it prunes (`audit rows`). */
  get what(): string {
    return this.#o.what;
  }

  start(): void {
    if (this.#o.retentionDays === 0 || this.#timer) return;
    const interval = this.#o.intervalMs ?? 3_600_000;
    // The first prune waits a little: starting processes have more urgent work.
    this.#timer = setTimeout(() => this.#tick(interval), Math.min(interval, 60_000));
    this.#timer.unref();
  }

  #tick(interval: number): void {
    this.#running = this.prune().finally(() => {
      this.#running = undefined;
      if (this.#stopped) return;
      this.#timer = setTimeout(() => this.#tick(interval), interval);
      this.#timer.unref();
    });
  }

  /** One prune now; failures are logged, never thrown (the next prune tries again). */
  async prune(): Promise<void> {
    try {
      const deleted = await this.#o.prune(this.#o.db, this.#o.retentionDays);
      if (deleted > 0) {
        const { retentionDays, what } = this.#o;
        this.#o.logger.info({ deleted, retentionDays }, `${what} pruned`);
      }
    } catch (error) {
      const message = `pruning ${this.#o.what} failed; retrying at the next interval`;
      this.#o.logger.warn({ err: error }, message);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
  }
}

/**
 * Runs `sql` (a delete of at most `batch` rows whose bindings end with the batch size) until it
 * deletes fewer than `batch`; returns how many went. Each statement should lock its rows with
 * SKIP LOCKED, so api processes pruning at the same moment split the work instead of waiting on
 * each other or deleting twice.
 */
export async function deleteInBatches(
  db: Knex,
  sql: string,
  bindings: readonly (string | number)[],
  batch: number,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const result: { rowCount?: number } = await db.raw(sql, [...bindings, batch]);
    const count = result.rowCount ?? 0;
    deleted += count;
    if (count < batch) return deleted;
  }
}

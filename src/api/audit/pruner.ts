/**
 * Audit retention (AUDIT_RETENTION_DAYS): every api process prunes rows past retention once soon
 * after start and then every `intervalMs`. Batches use SKIP LOCKED (./store.ts), so processes
 * pruning together share the work; 0 days keeps every row and starts nothing.
 */
import type { Knex } from '../../shared/db.ts';
import type { Logger } from '../../shared/logger.ts';
import { pruneAudit } from './store.ts';

export interface AuditPrunerOptions {
  db: Knex;
  /** Rows older than this are deleted (days); 0 keeps them forever. */
  retentionDays: number;
  /** Time between prunes (ms). @defaultValue one hour */
  intervalMs?: number;
  logger: Logger;
}

/** Deletes old audit rows on a timer; `stop()` waits for a prune under way. */
export class AuditPruner {
  readonly #o: AuditPrunerOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(options: AuditPrunerOptions) {
    this.#o = options;
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
      const deleted = await pruneAudit(this.#o.db, this.#o.retentionDays);
      if (deleted > 0)
        this.#o.logger.info({ deleted, retentionDays: this.#o.retentionDays }, 'audit rows pruned');
    } catch (error) {
      this.#o.logger.warn({ err: error }, 'audit prune failed; retrying at the next interval');
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
  }
}

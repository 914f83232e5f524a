/**
 * The health file: a small JSON file a process rewrites every few seconds while it runs, saying
 * whether its connections answer. `scripts/healthcheck.mjs` reads it for the container health
 * check and the Kubernetes probes. A file rather than an HTTP port per worker: workers then need
 * no port (any number of them run side by side, `docker compose --scale`, with nothing to
 * collide or expose), and the same check works in Docker and Kubernetes. A process whose event
 * loop is stuck stops rewriting it, so its age alone says the process no longer turns.
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import type { Logger } from './logger.ts';

/** What one dependency answered: `ok`, or `unreachable` (failed or slower than the timeout). */
export type CheckResult = 'ok' | 'unreachable';

/** The file's content (read by scripts/healthcheck.mjs; keep the two in step). */
export interface HealthRecord {
  component: string;
  pid: number;
  /** When it was written (ms since the epoch). */
  at: number;
  /** Age (ms) past which the file says nothing: the process stopped rewriting it. */
  staleAfterMs: number;
  /** Every check ok and the process not stopping. */
  ready: boolean;
  checks: Record<string, CheckResult>;
  /** A URL the health check also asks (api: its /healthz), when the process serves one. */
  url?: string;
}

/** Runs `fn`; `ok` when it settles without error within `timeoutMs`. */
export async function checkWithin(
  fn: () => Promise<unknown>,
  timeoutMs: number,
): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
        timer.unref();
      }),
    ]);
    return 'ok';
  } catch {
    return 'unreachable';
  } finally {
    clearTimeout(timer);
  }
}

export interface HealthFileOptions {
  /** Absolute path of the file (HEALTH_FILE). */
  path: string;
  /** Rewrite period (ms, HEALTH_INTERVAL_MS); the file is stale after three of them. */
  intervalMs: number;
  component: string;
  pid: number;
  logger: Logger;
  /** The dependencies' state now, one check per name; each must settle within the interval. */
  probe: () => Promise<Record<string, CheckResult>>;
  /** See {@link HealthRecord.url}. */
  url?: string;
}

/** Keeps the health file fresh from `start()` until `stop()`, which removes it. */
export class HealthFile {
  readonly #o: HealthFileOptions;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #stopping = false;
  #stopped = false;
  #failures = 0;

  constructor(options: HealthFileOptions) {
    this.#o = options;
  }

  /** Writes the file now, then every interval. */
  start(): void {
    this.#tick();
  }

  /** From now on the file says not ready (the process is draining); rewritten at once. */
  async stopping(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    // Chained: writes never overlap (they share the file written aside).
    this.#writing = this.#writing.then(() => this.#write());
    await this.#writing;
  }

  /** Stops rewriting and removes the file: a stopped process has no health to report. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#writing;
    await rm(this.#o.path, { force: true }).catch((error: unknown) =>
      this.#o.logger.warn({ err: error, path: this.#o.path }, 'could not remove the health file'),
    );
  }

  #tick(): void {
    if (this.#stopped) return;
    this.#writing = this.#writing
      .then(() => this.#write())
      .finally(() => {
        if (this.#stopped) return;
        // Unref'd: the health file never keeps a process alive on its own.
        this.#timer = setTimeout(() => this.#tick(), this.#o.intervalMs);
        this.#timer.unref();
      });
  }

  async #write(): Promise<void> {
    const { path, intervalMs, component, pid, probe, url, logger } = this.#o;
    const checks = await probe().catch((): Record<string, CheckResult> => ({
      probe: 'unreachable',
    }));
    if (this.#stopped) return;
    const record: HealthRecord = {
      component,
      pid,
      at: Date.now(),
      staleAfterMs: 3 * intervalMs,
      ready: !this.#stopping && Object.values(checks).every((c) => c === 'ok'),
      checks,
      ...(url ? { url } : {}),
    };
    // Written aside, then renamed over: a reader never sees half a file.
    const aside = `${path}.${pid}.tmp`;
    try {
      await writeFile(aside, `${JSON.stringify(record)}\n`);
      await rename(aside, path);
      this.#failures = 0;
    } catch (error) {
      // Logged once per run of failures: a full or read-only disk must not flood the log.
      if (this.#failures++ === 0)
        logger.warn({ err: error, path }, 'could not write the health file');
    }
  }
}

/**
 * The live `index-job` events of the indexer: a job's status and file counts, read from its row
 * (`index_jobs`, where run-job.ts records them) while it runs, at most once per `intervalMs`, and
 * published only when they changed. Reads and events of one job go out in order, so its last
 * event is its final state.
 */
import type { Knex } from '../shared/db.ts';
import type { EventPublisher } from '../shared/events/publisher.ts';
import type { IndexJobEvent } from '../shared/events/types.ts';
import { findJob, type JobRow } from '../shared/knowledge/jobs.ts';
import type { Logger } from '../shared/logger.ts';

export interface JobProgressOptions {
  db: Knex;
  events: EventPublisher;
  logger: Logger;
  /** Time between two reads of a running job's row (ms). @defaultValue 500 */
  intervalMs?: number;
}

/**
 * Jobs whose last event is remembered, ended ones included; past it the jobs that ended longest
 * ago are forgotten (an announce of one of those again would repeat its outcome, at worst).
 */
const MAX_REMEMBERED = 10_000;

const ENDED = new Set(['succeeded', 'partial', 'failed', 'superseded']);

function eventOf(row: JobRow): IndexJobEvent {
  const outcomes = Object.values(row.outcome ?? {});
  return {
    job_id: row.job_id,
    collection: row.collection_name,
    status: row.status,
    files_total: row.files_total,
    files_done: row.files_done,
    files_failed: outcomes.filter((o) => o.status === 'failed').length,
  };
}

export class JobProgressEvents {
  readonly #o: Required<JobProgressOptions>;
  /** Per job: the last event published (as JSON), whether it ended, the chain its reads wait in. */
  readonly #jobs = new Map<string, { last?: string; ended?: boolean; chain: Promise<void> }>();

  constructor(options: JobProgressOptions) {
    this.#o = { intervalMs: 500, ...options };
  }

  /** Reads the job's row once, after the reads before it, and publishes it when it changed. */
  announce(jobId: string): Promise<void> {
    if (!this.#jobs.has(jobId)) this.#forgetEnded();
    const job = this.#jobs.get(jobId) ?? { chain: Promise.resolve() };
    this.#jobs.set(jobId, job);
    job.chain = job.chain.then(async () => {
      try {
        const row = await findJob(this.#o.db, jobId);
        if (!row) return;
        const event = eventOf(row);
        const json = JSON.stringify(event);
        if (json !== job.last) this.#o.events.publish('index-job', event);
        // Kept after the job ended too: an announce made after the last one (the watch's last
        // tick, the failure handler's) must not publish the outcome again.
        job.last = json;
        job.ended = ENDED.has(row.status);
      } catch (error) {
        // Progress is best effort: a failed read only skips an event.
        this.#o.logger.debug({ err: error, jobId }, 'could not read a job for its live event');
      }
    });
    return job.chain;
  }

  /**
   * Makes room for one more job: forgets ended jobs, oldest first (a Map keeps insertion order).
   * A running job is never forgotten, so its reads stay in one chain.
   */
  #forgetEnded(): void {
    for (const [id, job] of this.#jobs) {
      if (this.#jobs.size < MAX_REMEMBERED) return;
      if (job.ended) this.#jobs.delete(id);
    }
  }

  /**
   * Announces the job now and every `intervalMs` until the returned function is called, which
   * announces it a last time.
   */
  watch(jobId: string): () => Promise<void> {
    void this.announce(jobId);
    const timer = setInterval(() => void this.announce(jobId), this.#o.intervalMs);
    timer.unref();
    return () => {
      clearInterval(timer);
      return this.announce(jobId);
    };
  }
}

/** An indexing job's progress: what the bar shows, and live `index-job` events applied to it. */
import type { IndexJob, IndexJobEvent, JobStatus } from '../../api/types.ts';

const FINISHED: readonly JobStatus[] = ['succeeded', 'partial', 'failed', 'superseded'];

/** Whether a job is over (no more progress will come). */
export function isFinished(status: JobStatus): boolean {
  return FINISHED.includes(status);
}

/** The numbers the progress bar shows. */
export interface ProgressNumbers {
  done: number;
  total: number;
  failed: number;
  /** 0..100, whole; 100 once finished even when a file failed. */
  percent: number;
}

export function progressOf(job: IndexJob): ProgressNumbers {
  const total = job.progress.files_total;
  const done = Math.min(job.progress.files_done, total);
  const failed = job.files.filter((f) => f.status === 'failed').length;
  const percent = isFinished(job.status) ? 100 : total === 0 ? 0 : Math.floor((done / total) * 100);
  return { done, total, failed, percent };
}

/** The `data` of an `index-job` event, or undefined when it is not one. */
export function parseIndexJobEvent(data: unknown): IndexJobEvent | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const d = data as Record<string, unknown>;
  const numbers = [d.files_total, d.files_done, d.files_failed];
  if (typeof d.job_id !== 'string' || typeof d.collection !== 'string') return undefined;
  if (typeof d.status !== 'string' || !numbers.every((n) => typeof n === 'number'))
    return undefined;
  return d as unknown as IndexJobEvent;
}

/**
 * The job with an event's status and counts applied. Events of another job, and events older
 * than what the job shows (fewer files done, or progress after it finished), leave it as it is:
 * events and fetches race, and the bar must not go backwards.
 */
export function applyIndexJobEvent(job: IndexJob, event: IndexJobEvent): IndexJob {
  if (event.job_id !== job.job_id) return job;
  if (isFinished(job.status) && !isFinished(event.status)) return job;
  if (event.files_done < job.progress.files_done) return job;
  return {
    ...job,
    status: event.status,
    progress: {
      ...job.progress,
      files_total: event.files_total,
      files_done: event.files_done,
    },
  };
}

/**
 * Whether the job's per-file outcomes must be fetched again after the event: a file finished
 * (the event counts files, the outcomes and reasons come from `GET /v2/index-jobs/:id`), or the
 * job did.
 */
export function needsRefetch(job: IndexJob, event: IndexJobEvent): boolean {
  if (event.job_id !== job.job_id) return false;
  const failedShown = job.files.filter((f) => f.status === 'failed').length;
  return (
    event.files_done !== job.progress.files_done ||
    event.files_failed !== failedShown ||
    isFinished(event.status) !== isFinished(job.status)
  );
}

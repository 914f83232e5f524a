/**
 * Indexing jobs as rows: the api creates one when it accepts `POST /v2/collections/<name>/index`,
 * the indexer when an `indexer` topic message comes without a job id, and the indexer records
 * progress and each file's outcome on it. `GET /v2/index-jobs/<id>` reads {@link jobView}.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from '../db.ts';
import type { EmbeddingChoice } from '../embeddings/provider.ts';

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'partial' | 'failed' | 'superseded';

/** What happened to one file of a job. */
export type FileOutcome =
  | { status: 'indexed'; chunks: number; pages?: number; sheets?: number; rows?: number }
  | {
      status: 'failed';
      /** Chunks of the previous version of this file carried over to the new content. */
      kept_chunks: number;
      error: { code: string; reason?: string; message: string };
    };

/** Chunking settings a request may give (`chunk_size`, `chunk_overlap`) and a search language. */
export interface JobOptions {
  chunk_size?: number;
  chunk_overlap?: number;
  language?: string;
  /**
   * How the job embeds its chunks: `local`, `api` or `none`; recorded when the job starts (from
   * the request, else the collection's choice, else EMBEDDINGS_PROVIDER) so a retry keeps it.
   */
  embedding_model?: EmbeddingChoice;
}

/** Chunking when a request names none (src/indexer/chunk.ts reads these). */
export const CHUNK_DEFAULTS = { size: 1200, overlap: 150 } as const;

/**
 * Most files one indexing job may name (the `files` cap of schemas/topics/indexer.json and
 * schemas/http/index-collection.json): about 2.6 MB of message at the longest names.
 */
export const MAX_JOB_FILES = 10_000;

/** Whether the request's overlap is over half its chunk size (the chunker refuses that). */
export function overlapTooLarge(options: JobOptions): boolean {
  const size = options.chunk_size ?? CHUNK_DEFAULTS.size;
  return options.chunk_overlap !== undefined && options.chunk_overlap * 2 > size;
}

export interface JobRow {
  id: string;
  job_id: string;
  collection_name: string;
  files: string[];
  options: JobOptions;
  status: JobStatus;
  files_total: number;
  files_done: number;
  chunks_done: number;
  /** Chunk vectors this job embedded (texts already embedded in the collection are not counted). */
  vectors_made: number;
  outcome: Record<string, FileOutcome>;
  error: string | null;
  attempts: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/**
 * Takes, until `trx` ends, the lock that orders a collection's new jobs against the clean-up of
 * vectors no job uses: a job is either recorded before a clean-up step looks for jobs, or after
 * that step's deletions are committed (a Postgres advisory lock on the collection's name).
 */
export async function lockCollectionJobs(trx: Knex.Transaction, collection: string): Promise<void> {
  await trx.raw(`select pg_advisory_xact_lock(hashtext('botwire:index-jobs:' || ?))`, [collection]);
}

/** A fresh public job id. */
export function newJobId(): string {
  return `job_${randomBytes(12).toString('base64url')}`;
}

/**
 * Records a job as queued. Idempotent on `jobId`: a second call (a redelivered topic message)
 * leaves the first row as it is. Returns the row.
 */
export async function createJob(
  db: Knex,
  job: { jobId: string; collection: string; files: readonly string[]; options: JobOptions },
): Promise<JobRow> {
  await db.transaction(async (trx) => {
    // Not while a finished job's clean-up is deciding what no job uses (deleteUnusedVectors).
    await lockCollectionJobs(trx, job.collection);
    await trx('index_jobs')
      .insert({
        job_id: job.jobId,
        collection_name: job.collection,
        files: JSON.stringify(job.files),
        options: JSON.stringify(job.options),
        files_total: job.files.length,
      })
      .onConflict('job_id')
      .ignore();
  });
  const row = await findJob(db, job.jobId);
  if (!row) throw new Error(`index job ${job.jobId} vanished after insert`);
  return row;
}

export async function findJob(db: Knex, jobId: string): Promise<JobRow | undefined> {
  return db<JobRow>('index_jobs').where({ job_id: jobId }).first();
}

/** The job as `GET /v2/index-jobs/<id>` shows it. */
export function jobView(row: JobRow): Record<string, unknown> {
  return {
    job_id: row.job_id,
    collection: row.collection_name,
    status: row.status,
    progress: {
      files_total: row.files_total,
      files_done: row.files_done,
      chunks_done: row.chunks_done,
      chunks_embedded: row.vectors_made,
    },
    ...(row.options.embedding_model ? { embedding_model: row.options.embedding_model } : {}),
    files: row.files.map((name) => ({ name, ...(row.outcome[name] ?? { status: 'pending' }) })),
    ...(row.error ? { error: row.error } : {}),
    attempts: row.attempts,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}

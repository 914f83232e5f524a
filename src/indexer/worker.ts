/**
 * Wires `indexer`: the `indexer` topic turns each request into a BullMQ job (one per job id, so a
 * redelivered message adds nothing), and a BullMQ worker runs the jobs: retries with backoff,
 * stalled-job recovery when an indexer dies (another, or the restarted one, takes the job over after
 * `INDEXER_LOCK_MS`), finished jobs trimmed. Progress and outcomes live in Postgres (`index_jobs`).
 */
import { createHash } from 'node:crypto';
import { DelayedError, Queue, UnrecoverableError, WaitingError, Worker } from 'bullmq';
import type { Config } from '../config.ts';
import { BotwireError } from '../shared/errors.ts';
import { createJob, overlapTooLarge, type JobOptions } from '../shared/knowledge/jobs.ts';
import type { Logger } from '../shared/logger.ts';
import type { Service } from '../shared/process.ts';
import { jobsConnection } from '../shared/jobs-connection.ts';
import { consume, createKit, openDb } from '../shared/worker-kit.ts';
import { createEmbedders } from '../shared/embeddings/embedders.ts';
import type { EmbeddingChoice } from '../shared/embeddings/provider.ts';
import { EXTRACT_DEFAULTS } from './extract/index.ts';
import { JobProgressEvents } from './progress-events.ts';
import { runIndexJob, STOPPED, YIELDED } from './run-job.ts';
import { failJob } from './store.ts';

/** A failure trying again cannot help: its message (a BotwireError's) is the job's error. */
class Refused extends UnrecoverableError {}

/** An `indexer` topic message (schemas/topics/indexer.json). */
export interface IndexRequest {
  collection_name: string;
  files: string[];
  chunk_size?: number;
  chunk_overlap?: number;
  language?: string;
  embedding_model?: EmbeddingChoice;
  job_id?: string;
}

/** The BullMQ queue of indexing jobs (KEDA scales the indexer on its waiting list). */
export const QUEUE = 'index';

/** BullMQ's key prefix for the jobs: the hash tag keeps the queue's keys in one cluster slot. */
export function jobsPrefix(streamPrefix: string): string {
  return `${streamPrefix}:{indexer-jobs}`;
}

/**
 * The job id of a request: the one the api gave it, or one derived from the stream entry and its
 * content, so a redelivery of the same entry names the same job.
 */
export function jobIdOf(request: IndexRequest, entryId: string): string {
  if (request.job_id) return request.job_id;
  const digest = createHash('sha256')
    .update(`${entryId}\n${JSON.stringify(request)}`)
    .digest('base64url');
  return `job_t${digest.slice(0, 22)}`;
}

export async function startIndexer(config: Config, logger: Logger): Promise<Service> {
  const kit = createKit(config, logger, { name: 'botwire-indexer' });
  const db = openDb(kit, { statementTimeoutMs: config.knowledge.indexerStatementTimeoutMs });
  const { knowledge } = config;
  const closed = new AbortController();
  const jobs = jobsConnection(config.redisUrl, config.redisTlsCa);
  const { connection } = jobs;
  const prefix = jobsPrefix(config.stream.prefix);
  const queue = new Queue(QUEUE, {
    connection,
    prefix,
    defaultJobOptions: {
      attempts: knowledge.indexerAttempts,
      backoff: { type: 'exponential', delay: 2000 },
      removeOnComplete: { age: 7 * 24 * 3600, count: 1000 },
      removeOnFail: { age: 30 * 24 * 3600, count: 5000 },
    },
  });
  queue.on('error', (error) => logger.warn({ err: error.message }, 'job queue error'));
  const embedders = createEmbedders(config.embeddings);
  const deps = {
    db,
    storageDir: knowledge.storageDir,
    limits: {
      ...EXTRACT_DEFAULTS,
      maxFileBytes: knowledge.maxDocumentBytes,
      spreadsheet: {
        maxMemoryMb: knowledge.spreadsheetMemoryMb,
        timeoutMs: knowledge.spreadsheetTimeoutMs,
      },
      pdf: { timeoutMs: knowledge.pdfTimeoutMs, maxMemoryMb: knowledge.pdfMemoryMb },
    },
    logger,
    embedders,
    readLanes: knowledge.indexerReadLanes,
    // Aborted on close: every PDF thread in flight is terminated, spreadsheet workers closed.
    signal: closed.signal,
  };
  // Live `index-job` events, read from the job's row while it runs (a few per second at most).
  const progress = new JobProgressEvents({ db, events: kit.events, logger });
  const worker = new Worker<{ job_id: string; resumed?: boolean }>(
    QUEUE,
    async (job, token) => {
      const started = Date.now();
      // A slice ends between two files once INDEXER_SLICE_MS have passed and another job waits.
      const shouldYield = async (): Promise<boolean> =>
        Date.now() - started >= knowledge.indexerSliceMs && (await queue.getWaitingCount()) > 0;
      const unwatch = progress.watch(job.data.job_id);
      const result = await runIndexJob(deps, job.data.job_id, () => closed.signal.aborted, {
        shouldYield,
        resumed: job.data.resumed === true,
      })
        .catch((error: unknown) => {
          // What trying again cannot help (a setting, a provider refusing or answering out of
          // shape) fails the job at once, instead of reading every file again per attempt.
          if (error instanceof BotwireError && !error.retryable) throw new Refused(error.message);
          throw error;
        })
        .finally(unwatch);
      if (result === STOPPED) {
        // Back to wait without spending an attempt; the next indexer resumes after the files done.
        await job.moveToWait(token);
        throw new WaitingError();
      }
      if (result === YIELDED) {
        // To the end of the queue (a delayed job due now is appended to the waiting list, where
        // moveToWait would put it first), without spending an attempt.
        await job.updateData({ ...job.data, resumed: true });
        await job.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
      return result;
    },
    {
      connection,
      prefix,
      concurrency: knowledge.indexerConcurrency,
      lockDuration: knowledge.indexerLockMs,
      stalledInterval: knowledge.indexerLockMs,
      maxStalledCount: knowledge.indexerAttempts,
    },
  );
  worker.on('error', (error) => logger.warn({ err: error.message }, 'job worker error'));
  worker.on('failed', (job, error) => {
    if (!job) return;
    // BullMQ sets finishedOn when a job fails for good: its attempts are spent, or it stalled
    // more often than maxStalledCount (which does not count as attempts).
    const spent = job.finishedOn !== undefined && job.finishedOn !== null;
    logger.warn(
      { jobId: job.data.job_id, attempt: job.attemptsMade, err: error.message, spent },
      'indexing attempt failed',
    );
    if (spent) {
      // BullMQ fails a job that stalled more than maxStalledCount with an UnrecoverableError of
      // its own ("job stalled more than allowable limit"), so only ours carry their message.
      const reason =
        error instanceof BotwireError || error instanceof Refused
          ? error.message
          : /stalled/.test(error.message)
            ? 'the indexer stopped too often while running this job'
            : 'an internal error (see the indexer log)';
      failJob(db, job.data.job_id, `indexing failed: ${reason}`)
        .then(() => progress.announce(job.data.job_id))
        .catch((err: unknown) =>
          logger.error({ err, jobId: job.data.job_id }, 'could not record a failed job'),
        );
    }
  });

  return consume<IndexRequest>(
    kit,
    'indexer',
    async (request, context) => {
      if (overlapTooLarge(request)) {
        throw new BotwireError(
          'BW_ERR_MESSAGE_INVALID',
          'chunk_overlap may be at most half of chunk_size',
        );
      }
      const jobId = jobIdOf(request, context.id);
      const options: JobOptions = {
        ...(request.chunk_size ? { chunk_size: request.chunk_size } : {}),
        ...(request.chunk_overlap !== undefined ? { chunk_overlap: request.chunk_overlap } : {}),
        ...(request.language ? { language: request.language } : {}),
        ...(request.embedding_model ? { embedding_model: request.embedding_model } : {}),
      };
      const row = await createJob(db, {
        jobId,
        collection: request.collection_name,
        files: request.files,
        options,
      });
      if (row.collection_name !== request.collection_name) {
        throw new BotwireError(
          'BW_ERR_MESSAGE_INVALID',
          `job_id ${jobId} already names a job of another collection`,
        );
      }
      await queue.add(QUEUE, { job_id: jobId }, { jobId });
      void progress.announce(jobId);
      context.log.info(
        { jobId, collection: request.collection_name, files: request.files.length },
        'indexing job queued',
      );
    },
    [
      () => {
        closed.abort();
        return worker.close();
      },
      () => queue.close(),
      () => embedders.close(),
      () => jobs.close(),
      () => db.destroy(),
    ],
  );
}

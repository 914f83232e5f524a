/**
 * One indexing job: every file is read, chunked and stored under the job's generation, each file
 * on its own (a bad file fails alone, with its reason); then the collection swaps to the new
 * generation. Failures of our infrastructure (Postgres, a spreadsheet worker that cannot start)
 * are thrown, so BullMQ retries the job; the retry skips files already stored.
 */
import { BotwireError } from '../shared/errors.ts';
import type { Knex } from '../shared/db.ts';
import type { FileOutcome, JobRow } from '../shared/knowledge/jobs.ts';
import { documentPath } from '../shared/knowledge/names.ts';
import type { Logger } from '../shared/logger.ts';
import { chunkSheets, type ChunkOptions } from './chunk.ts';
import { chooseLanguage, SAMPLE_CHARS } from './language.ts';
import type {
  EmbeddingChoice,
  Embedders,
  EmbeddingProvider,
} from '../shared/embeddings/provider.ts';
import { embedChunks, embedKeptChunks } from './embed-chunks.ts';
import {
  extractForIndex,
  isStopped,
  SpreadsheetReader,
  type ExtractLimits,
} from './extract/index.ts';
import { unreadable } from './extract/pdf.ts';
import {
  beginAttempt,
  ensureCollection,
  finishJob,
  recordOutcome,
  reloadJob,
  saveJobLanguage,
  storeFile,
  type Finish,
  type StoredChunk,
} from './store.ts';

export interface JobDeps {
  db: Knex;
  storageDir: string;
  limits: ExtractLimits;
  logger: Logger;
  /**
   * The embedding providers; without them every job is indexed for words only, as with the
   * choice `none`. @defaultValue none
   */
  embedders?: Embedders;
  /** Files one job reads at once (see `runIndexJob`). @defaultValue 2 */
  readLanes?: number;
  /**
   * Aborted when the indexer closes: reads in flight stop at once (their threads are terminated)
   * and the job stops as with `stopping()`. @defaultValue none
   */
  signal?: AbortSignal;
}

/** How `runIndexJob` runs one slice of a job. */
export interface SliceOptions {
  /**
   * Asked between two files, after at least one was handled: true makes the job stop there and
   * return {@link YIELDED}, so other jobs can run (see docs/knowledge.md, Sharing the indexer).
   * @defaultValue never
   */
  shouldYield?: () => Promise<boolean>;
  /** The job resumes after a yield: its attempt count stays. @defaultValue false */
  resumed?: boolean;
}

/** Whether a failure belongs to the file (not retried) rather than to our infrastructure. */
function isFileError(error: unknown): error is BotwireError {
  return (
    error instanceof BotwireError &&
    [
      'BW_ERR_DOCUMENT_UNREADABLE',
      'BW_ERR_DOCUMENT_TOO_LARGE',
      'BW_ERR_DOCUMENT_UNSUPPORTED',
      'BW_ERR_NOT_FOUND',
      'BW_ERR_SCHEMA',
    ].includes(error.code)
  );
}

function reasonOf(error: BotwireError): string | undefined {
  const reason = (error.details as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' ? reason : undefined;
}

/** A file's chunks and what was counted in it. */
interface Chunked {
  chunks: StoredChunk[];
  counts: Omit<FileOutcome & { status: 'indexed' }, 'status' | 'chunks'>;
}

/** A file read: its chunks, or why it could not be read. */
type Read = { stored: Chunked } | { error: unknown };

async function chunksOf(
  deps: JobDeps,
  job: JobRow,
  file: string,
  sheets: SpreadsheetReader,
): Promise<Chunked> {
  const options: ChunkOptions = {
    ...(job.options.chunk_size ? { size: job.options.chunk_size } : {}),
    ...(job.options.chunk_overlap !== undefined ? { overlap: job.options.chunk_overlap } : {}),
  };
  const document = await extractForIndex(
    { path: documentPath(deps.storageDir, job.collection_name, file) },
    deps.limits,
    sheets,
    options,
    deps.signal,
  );
  if (document.kind === 'pdf') {
    const chunks = document.chunks.map((c) => ({ text: c.text, page: c.source.page }));
    return { chunks, counts: { pages: document.pages } };
  }
  // Sheets are parsed in the spreadsheet worker; their chunking is linear in the rows it sent.
  const chunks = chunkSheets(document.sheets, options).map((c) => ({
    text: c.text,
    sheet: c.source.sheet,
    rows: c.source.rows,
  }));
  const rows = document.sheets.reduce((sum, sheet) => sum + sheet.rows.length, 0);
  return { chunks, counts: { sheets: document.sheets.length, rows } };
}

/** Postgres refusing a file's text as data (bad encoding, invalid text): the file's fault. */
const DATA_ERRORS = new Set(['22021', '22P02', '22P05', '54000']);

function isDataError(error: unknown): boolean {
  return DATA_ERRORS.has((error as { code?: unknown }).code as string);
}

function failure(error: BotwireError): FileOutcome {
  const reason = reasonOf(error);
  return {
    status: 'failed',
    kept_chunks: 0,
    error: { code: error.code, ...(reason ? { reason } : {}), message: error.message },
  };
}

/** The first `SAMPLE_CHARS` characters of the chunks' text. */
function sampleOf(chunks: readonly StoredChunk[]): string {
  let sample = '';
  for (const chunk of chunks) {
    if (sample.length >= SAMPLE_CHARS) break;
    sample += `${chunk.text}\n`;
  }
  return sample;
}

/** The collection's language while it has content, so a re-index keeps searching the same way. */
async function currentLanguage(db: Knex, collectionId: string): Promise<string | undefined> {
  const row = await db<{ id: string; language: string; active_generation: string | null }>(
    'collections',
  )
    .where({ id: collectionId })
    .first('language', 'active_generation');
  return row?.active_generation ? row.language : undefined;
}

/**
 * How the job embeds: as recorded on the job (a retry keeps its first choice), else the
 * collection's own choice, else the deployment's default; recorded on the job's first attempt.
 */
async function embeddingChoice(
  deps: JobDeps,
  job: JobRow,
  collectionId: string,
): Promise<EmbeddingChoice> {
  if (job.options.embedding_model) return job.options.embedding_model;
  if (!deps.embedders) return 'none';
  const row = await deps
    .db<{ id: string; embedding_model: EmbeddingChoice | null }>('collections')
    .where({ id: collectionId })
    .first('embedding_model');
  const choice = row?.embedding_model ?? deps.embedders.defaultChoice;
  await deps
    .db('index_jobs')
    .where({ id: job.id })
    .update({
      options: deps.db.raw(`options || jsonb_build_object('embedding_model', ?::text)`, [choice]),
    });
  return choice;
}

/** Files stored at once by one job (see `runIndexJob`). */
const STORE_LANES = 2;

/**
 * Stores one file's chunks with its outcome; a file whose text Postgres refuses is recorded
 * failed instead (its transaction stored nothing). Throws only our infrastructure's failures.
 */
async function storeOne(
  db: Knex,
  log: Logger,
  args: {
    job: JobRow;
    collectionId: string;
    file: string;
    language: string;
    stored: Chunked;
    provider: EmbeddingProvider | undefined;
    signal: AbortSignal | undefined;
  },
): Promise<void> {
  const { job, collectionId, file, language, stored, provider, signal } = args;
  if (provider) {
    // Before the file's transaction, committed a batch at a time: a retry finds what was made.
    const made = await embedChunks(db, {
      collectionId,
      provider,
      texts: stored.chunks.map((chunk) => chunk.text),
      jobId: job.id,
      ...(signal ? { signal } : {}),
    });
    log.debug({ file, vectors: made }, 'file embedded');
  }
  try {
    await storeFile(db, {
      job,
      collectionId,
      file,
      language,
      chunks: stored.chunks,
      outcome: { status: 'indexed', chunks: stored.chunks.length, ...stored.counts },
    });
  } catch (error) {
    if (!isDataError(error)) throw error;
    const refused = unreadable('damaged', 'the file holds text the database cannot store', error);
    log.warn({ file, err: (error as Error).message }, refused.message);
    await recordOutcome(db, job, file, failure(refused));
    return;
  }
  log.info({ file, chunks: stored.chunks.length }, 'file indexed');
}

/** `runIndexJob` stopped between files because the indexer is closing; the job should go back to wait. */
export const STOPPED = 'stopped';

/** `runIndexJob` stopped between files to let other jobs run; the job should go to the queue's end. */
export const YIELDED = 'yielded';

/**
 * Runs the job `jobId` (one attempt, or one slice of it). Returns how it finished, `STOPPED` when
 * `stopping()` became true between two files or `deps.signal` aborted a read (the next attempt
 * resumes after the files done), `YIELDED` when `slice.shouldYield()` said so, or undefined when
 * the job is unknown or already finished.
 */
export async function runIndexJob(
  deps: JobDeps,
  jobId: string,
  stopping: () => boolean = () => false,
  slice: SliceOptions = {},
): Promise<Finish | typeof STOPPED | typeof YIELDED | undefined> {
  const { db, logger } = deps;
  let job = await beginAttempt(db, jobId, { count: slice.resumed !== true });
  if (!job) return undefined;
  const log = logger.child({ jobId, collection: job.collection_name, attempt: job.attempts });
  const collectionId = await ensureCollection(db, job.collection_name);
  let language = job.options.language ?? (await currentLanguage(db, collectionId));
  const choice = await embeddingChoice(deps, job, collectionId);
  const provider = choice === 'none' ? undefined : deps.embedders?.forChoice(choice);
  if (choice !== 'none' && !provider) {
    throw new BotwireError(
      'BW_ERR_CONFIG',
      `the collection is embedded with "${choice}", which this indexer is not configured for (EMBEDDINGS_API_URL is empty)`,
      { retryable: false },
    );
  }
  // Files are read `readLanes` at a time (a PDF is extracted in a pdf.js thread of its own, so
  // PDFs use a core each) and handled in the job's order; they are stored up to STORE_LANES at a
  // time, each in its own transaction on its own connection: most of storing is Postgres turning
  // text into vectors, one core per backend. The next files are read while earlier ones are
  // stored, so at most STORE_LANES + readLanes + 1 files' text is in memory at once (the +1: a
  // file read and waiting for a store lane while the reads after it go on).
  // One spreadsheet worker reads this job's spreadsheets in turn (they are one collection's
  // content; storing them, not reading them, is what takes the cores); it is terminated at the
  // end, stop or failure included (a file still read ahead then fails unseen).
  const readLanes = Math.max(1, deps.readLanes ?? 2);
  const sheets = new SpreadsheetReader(deps.limits.spreadsheet);
  const closing = (): boolean => stopping() || deps.signal?.aborted === true;
  const closeSheets = (): void => void sheets.close();
  deps.signal?.addEventListener('abort', closeSheets);
  try {
    const begun = job;
    const files = begun.files.filter((file) => !begun.outcome[file]); // the rest stored by an earlier attempt
    // Reads in flight, in file order; they never reject.
    const reading: Promise<Read>[] = [];
    let asked = 0;
    const readAhead = (): void => {
      while (reading.length < readLanes && asked < files.length && !closing()) {
        reading.push(
          chunksOf(deps, begun, files[asked]!, sheets).then(
            (stored) => ({ stored }),
            (error: unknown) => ({ error }),
          ),
        );
        asked += 1;
      }
    };
    readAhead();
    // Stores in flight; they never reject: the first infrastructure failure is kept in `failed`.
    const storing = new Set<Promise<void>>();
    let failed: { error: unknown } | undefined;
    const store = (file: string, stored: Chunked, config: string): void => {
      const task: Promise<void> = storeOne(db, log, {
        job: begun,
        collectionId,
        file,
        language: config,
        stored,
        provider,
        signal: deps.signal,
      })
        .catch((error: unknown) => {
          failed ??= { error };
        })
        .finally(() => storing.delete(task));
      storing.add(task);
    };
    // Waits for every store and read in flight (neither rejects).
    const settle = async (): Promise<void> => {
      await Promise.all(storing);
      await Promise.all(reading);
    };
    // A file read ahead is dropped unstored (its promise never rejects; a PDF's thread is
    // terminated when `deps.signal` aborts); the next attempt reads it again. Waiting for it would
    // hold the shutdown for a whole file; the stores in flight are waited for, so the job's row is
    // final before it goes back to the queue.
    const stop = async (how: typeof STOPPED | typeof YIELDED): Promise<typeof how> => {
      await Promise.all(storing);
      if (failed) throw failed.error;
      log.info(
        how === STOPPED
          ? 'indexer closing: the job goes back to wait and resumes after the files done'
          : 'other jobs wait: this one goes to the end of the queue and resumes after the files done',
      );
      return how;
    };
    let handled = 0;
    try {
      for (const file of files) {
        if (closing()) return await stop(STOPPED);
        if (handled > 0 && slice.shouldYield && (await slice.shouldYield())) {
          return await stop(YIELDED);
        }
        handled += 1;
        const result = await reading.shift()!;
        if ('error' in result && (isStopped(result.error) || deps.signal?.aborted === true)) {
          return await stop(STOPPED);
        }
        readAhead();
        let stored: Chunked;
        try {
          if ('error' in result) throw result.error;
          stored = result.stored;
          if (stored.chunks.length === 0) {
            throw unreadable('no-text', 'the file holds no text (a scanned PDF needs OCR first)');
          }
        } catch (error) {
          if (!isFileError(error)) throw error;
          log.warn({ file, code: error.code, reason: reasonOf(error) }, error.message);
          await recordOutcome(db, job, file, failure(error));
          continue;
        }
        if (!language) {
          language = await chooseLanguage(db, sampleOf(stored.chunks));
          await saveJobLanguage(db, job, language);
        }
        while (storing.size >= STORE_LANES) await Promise.race(storing);
        if (failed) throw failed.error;
        store(file, stored, language);
      }
    } catch (error) {
      // Whatever failed (a read, recording an outcome, choosing the language, a store), no store
      // or read of this attempt outlives it: the job's next attempt may start at once. A store's
      // failure is the one reported.
      await settle();
      throw failed ? failed.error : error;
    }
    await settle();
    if (failed) throw failed.error;
    job = await reloadJob(db, job);
    if (provider) {
      // A failed file keeps its previous chunks (finishJob copies them): they need vectors of
      // this job's model too, which they lack when the model changed or the content had none.
      const kept = Object.entries(job.outcome)
        .filter(([, outcome]) => outcome.status === 'failed')
        .map(([file]) => file);
      if (kept.length > 0) {
        await embedKeptChunks(db, {
          collectionId,
          provider,
          files: kept,
          jobId: job.id,
          ...(deps.signal ? { signal: deps.signal } : {}),
        });
      }
    }
    const finish = await finishJob(
      db,
      job,
      collectionId,
      language ?? 'simple',
      provider?.model ?? null,
    );
    if (finish.cleanupErrors) {
      log.warn(
        finish,
        'indexing job finished; cleaning up after the swap failed (see cleanupErrors)',
      );
    } else {
      log.info(finish, 'indexing job finished');
    }
    return finish;
  } finally {
    deps.signal?.removeEventListener('abort', closeSheets);
    await sheets.close();
  }
}

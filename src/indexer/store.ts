/**
 * What an indexing job writes: its chunks under its own generation, its progress and per-file
 * outcome, and at the end the swap that makes the generation the one searches read.
 *
 * Every file is stored in one transaction together with its outcome, so after a crash a retried
 * job skips the files already done and rewrites the one that was half-way (its chunks are deleted
 * first): no chunk is stored twice.
 */
import type { Knex } from '../shared/db.ts';
import { errorMessage } from '../shared/errors.ts';
import { storable } from '../shared/pg-text.ts';
import type { FileOutcome, JobRow } from '../shared/knowledge/jobs.ts';
import { deleteUnusedVectors } from './embed-chunks.ts';
import { identifierParts } from '../shared/knowledge/identifiers.ts';

/** A chunk ready to store: text and where it came from. */
export interface StoredChunk {
  text: string;
  page?: number;
  sheet?: string;
  rows?: [number, number];
}

/** Chunks sent to Postgres per statement. */
const BATCH = 500;

const INSERT_SQL = `
insert into chunks (collection_id, generation, file, ordinal, page, sheet, row_first, row_last, text, tsv, text_sha)
select :collection, :generation, :file, x.ordinal, x.page, x.sheet, x.row_first, x.row_last, x.text,
       to_tsvector(:language::regconfig, x.text) || to_tsvector(:language::regconfig, x.parts),
       sha256(convert_to(x.text, 'UTF8'))
from jsonb_to_recordset(:rows::jsonb)
  as x(ordinal int, page int, sheet text, row_first int, row_last int, text text, parts text)`;

/**
 * Marks the job running for one more attempt (`count: false`: the same attempt, resumed after
 * yielding to other jobs). Returns the row, or undefined when it is missing or already finished (a
 * duplicate of a job that ran).
 */
export async function beginAttempt(
  db: Knex,
  jobId: string,
  { count = true }: { count?: boolean } = {},
): Promise<JobRow | undefined> {
  const [row] = (await db('index_jobs')
    .where({ job_id: jobId })
    .whereIn('status', ['queued', 'running'])
    .update({
      status: 'running',
      attempts: db.raw(count ? 'attempts + 1' : 'greatest(attempts, 1)'),
      started_at: db.raw('coalesce(started_at, now())'),
    })
    .returning('*')) as JobRow[];
  return row;
}

/**
 * The collection's id, creating the collection on its first job. Creating one makes its `chunks`
 * partition (a trigger), whose foreign key locks `collections` in SHARE ROW EXCLUSIVE mode; the
 * lock is taken before the insert, so two jobs creating collections at once wait for each other
 * instead of deadlocking.
 */
export async function ensureCollection(db: Knex, name: string): Promise<string> {
  const idOf = async (conn: Knex): Promise<string | undefined> => {
    const row = await conn<{ id: string; name: string }>('collections').where({ name }).first('id');
    return row ? String(row.id) : undefined;
  };
  const known = await idOf(db);
  if (known !== undefined) return known;
  return db.transaction(async (trx) => {
    await trx.raw('lock table collections in share row exclusive mode');
    await trx('collections').insert({ name }).onConflict('name').ignore();
    const id = await idOf(trx);
    if (id === undefined) throw new Error(`collection ${name} vanished after insert`);
    return id;
  });
}

/** Keeps the language a job chose, so a retry of the job indexes with the same one. */
export async function saveJobLanguage(db: Knex, job: JobRow, language: string): Promise<void> {
  await db('index_jobs')
    .where({ id: job.id })
    .update({ options: db.raw(`options || jsonb_build_object('language', ?::text)`, [language]) });
}

/** Stores one file's chunks and its outcome in one transaction (replacing a half-done attempt). */
export async function storeFile(
  db: Knex,
  args: {
    job: JobRow;
    collectionId: string;
    file: string;
    language: string;
    chunks: readonly StoredChunk[];
    outcome: FileOutcome;
  },
): Promise<void> {
  const { job, collectionId, file, language, chunks, outcome } = args;
  await db.transaction(async (trx) => {
    await trx('chunks').where({ collection_id: collectionId, generation: job.id, file }).delete();
    for (let start = 0; start < chunks.length; start += BATCH) {
      const rows = chunks.slice(start, start + BATCH).map((chunk, i) => ({
        ordinal: start + i,
        page: chunk.page ?? null,
        sheet: chunk.sheet === undefined ? null : storable(chunk.sheet),
        row_first: chunk.rows?.[0] ?? null,
        row_last: chunk.rows?.[1] ?? null,
        text: storable(chunk.text),
        // Paths, file names and codes also by their parts (src/shared/knowledge/identifiers.ts).
        parts: storable(identifierParts(chunk.text)),
      }));
      await trx.raw(INSERT_SQL, {
        collection: collectionId,
        generation: job.id,
        file,
        language,
        rows: JSON.stringify(rows),
      });
    }
    await recordOutcome(trx, job, file, outcome, chunks.length);
  });
}

/**
 * Records a file's outcome and counts it done, once: a second attempt racing the first (a lost
 * lock) cannot count a file twice.
 */
export async function recordOutcome(
  db: Knex,
  job: JobRow,
  file: string,
  outcome: FileOutcome,
  chunks = 0,
): Promise<void> {
  await db('index_jobs')
    .where({ id: job.id })
    .whereRaw('not (outcome \\? ?)', [file])
    .update({
      outcome: db.raw('outcome || jsonb_build_object(?::text, ?::jsonb)', [
        file,
        JSON.stringify(outcome),
      ]),
      files_done: db.raw('files_done + 1'),
      chunks_done: db.raw('chunks_done + ?', [chunks]),
    });
}

/** The job's current row (outcomes recorded so far). */
export async function reloadJob(db: Knex, job: JobRow): Promise<JobRow> {
  const row = await db<JobRow>('index_jobs').where({ id: job.id }).first();
  if (!row) throw new Error(`index job ${job.job_id} vanished`);
  return row;
}

export interface Finish {
  status: 'succeeded' | 'partial' | 'failed' | 'superseded';
  chunks: number;
  /**
   * What went wrong after the swap committed, when something did: deleting the older generations
   * (they stay, unread by searches, until the collection's next swap deletes every generation
   * before its own) or analysing the collection's partition (its planner statistics stay old).
   * The job itself succeeded. Each is `<step>: [<SQLSTATE>] <message>`.
   */
  cleanupErrors?: string[];
}

/**
 * Ends the job. With at least one file indexed, the collection switches to the job's generation in
 * one update; a failed file's chunks from the previous content are carried over first, so a bad
 * upload does not erase what was searchable. With no file indexed, nothing changes. A job that
 * finishes after a newer job of the same collection already swapped is `superseded`. Older
 * generations are deleted after the swap commits.
 */
export async function finishJob(
  db: Knex,
  job: JobRow,
  collectionId: string,
  language: string,
  /** The model of the job's vectors; null when the job made none (searched by words only). */
  vectorsModel: string | null = null,
): Promise<Finish> {
  const result = await db.transaction(async (trx): Promise<Finish> => {
    const collection = await trx<{
      id: string;
      active_generation: string | null;
      language: string;
    }>('collections')
      .where({ id: collectionId })
      .forUpdate()
      .first('active_generation', 'language');
    const active = collection?.active_generation ?? null;
    const current = await trx<JobRow>('index_jobs').where({ id: job.id }).first('status');
    if (current?.status !== 'running') {
      // Another attempt of this job (one that lost its lock) finished it already.
      return { status: 'superseded', chunks: 0 };
    }
    const outcomes = Object.entries(job.outcome);
    const indexed = outcomes.filter(([, o]) => o.status === 'indexed').length;
    const end = async (status: Finish['status'], error?: string): Promise<void> => {
      await trx('index_jobs')
        .where({ id: job.id })
        .update({ status, finished_at: trx.fn.now(), error: error ?? null });
    };
    if (active !== null && BigInt(active) > BigInt(job.id)) {
      await trx('chunks').where({ collection_id: collectionId, generation: job.id }).delete();
      await end('superseded', 'a newer indexing job of this collection finished first');
      return { status: 'superseded', chunks: 0 };
    }
    if (indexed === 0) {
      await trx('chunks').where({ collection_id: collectionId, generation: job.id }).delete();
      await end('failed', 'no file could be indexed; the collection is unchanged');
      return { status: 'failed', chunks: 0 };
    }
    const failed = outcomes.filter(([, o]) => o.status === 'failed').map(([file]) => file);
    if (active !== null && failed.length > 0) {
      const { rows } = await trx.raw<{ rows: { file: string }[] }>(
        `insert into chunks (collection_id, generation, file, ordinal, page, sheet, row_first, row_last, text, tsv, text_sha)
         select collection_id, ?, file, ordinal, page, sheet, row_first, row_last, text,
                -- Kept as it is in the same language (with its identifiers' parts); else re-made
                -- from the text alone.
                case when ?::text = ?::text then tsv else to_tsvector(?::regconfig, text) end,
                text_sha
         from chunks where collection_id = ? and generation = ? and file = any(?)
         returning file`,
        [job.id, collection?.language ?? null, language, language, collectionId, active, failed],
      );
      const kept = new Map<string, number>();
      for (const { file } of rows) kept.set(file, (kept.get(file) ?? 0) + 1);
      for (const [file, count] of kept) {
        await trx('index_jobs')
          .where({ id: job.id })
          .update({
            outcome: trx.raw(
              `jsonb_set(outcome, array[?::text, 'kept_chunks'], to_jsonb(?::int))`,
              [file, count],
            ),
          });
      }
    }
    const totals = (await trx('chunks')
      .where({ collection_id: collectionId, generation: job.id })
      .select(trx.raw('count(*)::int as chunks, count(distinct file)::int as files'))
      .first()) as { chunks: number; files: number };
    // The generation's words and how many chunks hold each: the searches' rare-word weights and
    // typo corrections (src/shared/knowledge/terms.ts). Both ids are integers from the database.
    await trx.raw(
      `insert into collection_terms (collection_id, generation, word, ndoc)
       select ?, ?, word, ndoc from ts_stat(?)`,
      [
        collectionId,
        job.id,
        `select tsv from chunks where collection_id = ${BigInt(collectionId)} and generation = ${BigInt(job.id)}`,
      ],
    );
    await trx('collections').where({ id: collectionId }).update({
      active_generation: job.id,
      language,
      vectors_model: vectorsModel,
      file_count: totals.files,
      chunk_count: totals.chunks,
      indexed_at: trx.fn.now(),
    });
    const status = failed.length > 0 ? 'partial' : 'succeeded';
    await end(status);
    return { status, chunks: totals.chunks };
  });
  if (result.status !== 'succeeded' && result.status !== 'partial') return result;
  // After the commit, so each step is on its own: the swap stands whatever happens here.
  const cleanupErrors: string[] = [];
  const attempt = async (step: string, work: () => Promise<unknown>): Promise<void> => {
    try {
      await work();
    } catch (error) {
      const code = (error as { code?: unknown } | undefined)?.code;
      cleanupErrors.push(
        `${step}: ${typeof code === 'string' ? `[${code}] ` : ''}${errorMessage(error)}`,
      );
    }
  };
  await attempt('deleting older generations', () =>
    deleteOlderGenerations(db, collectionId, job.id),
  );
  // The collection's partition (migrations/20261123000000_chunks_by_collection.ts) gets fresh
  // statistics, which its searches are planned from; autovacuum may be off or come much later.
  await attempt('analysing the partition', () => db.raw('analyze ??', [`chunks_${collectionId}`]));
  await attempt('deleting unused vectors', () => deleteUnusedVectors(db, collectionId, job.id));
  await attempt('deleting older word counts', () =>
    db('collection_terms')
      .where({ collection_id: collectionId })
      .where('generation', '<', job.id)
      .delete(),
  );
  // Searches plan their word lookups from these statistics (src/shared/knowledge/terms.ts).
  await attempt('analysing the word counts', () => db.raw('analyze collection_terms'));
  return cleanupErrors.length > 0 ? { ...result, cleanupErrors } : result;
}

/** Rows removed per statement by {@link deleteOlderGenerations}. */
const DELETE_BATCH = 10_000;

/**
 * Deletes the collection's chunks of generations before `generation`, `batch` rows per statement
 * (each its own transaction), and returns how many went. Searches never read those generations,
 * so the delete need not be atomic; in batches, a collection of millions of chunks never makes
 * one statement run into the indexer's statement limit or hold its row locks for minutes, and
 * what was deleted before a failure stays deleted.
 */
export async function deleteOlderGenerations(
  db: Knex,
  collectionId: string,
  generation: string,
  batch = DELETE_BATCH,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const { rowCount } = await db.raw<{ rowCount: number }>(
      `delete from chunks where collection_id = :collection and id in (
         select id from chunks where collection_id = :collection and generation < :generation
         limit :batch)`,
      { collection: collectionId, generation, batch },
    );
    deleted += rowCount;
    if (rowCount < batch) return deleted;
  }
}

/** Marks a job failed for good (its attempts are spent); its chunks go. */
export async function failJob(db: Knex, jobId: string, error: string): Promise<void> {
  await db.transaction(async (trx) => {
    const rows: { id: string; collection_name: string }[] = await trx('index_jobs')
      .where({ job_id: jobId })
      .whereIn('status', ['queued', 'running'])
      .update({ status: 'failed', error: error.slice(0, 2000), finished_at: trx.fn.now() })
      .returning(['id', 'collection_name']);
    const row = rows[0];
    if (!row) return;
    // The collection's id first, so the delete touches its partition only.
    const collection = await trx<{ id: string; name: string }>('collections')
      .where({ name: row.collection_name })
      .first('id');
    if (!collection) return;
    await trx('chunks').where({ collection_id: collection.id, generation: row.id }).delete();
  });
}

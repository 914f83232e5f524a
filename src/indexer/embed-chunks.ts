/**
 * Gives every chunk of a file its vector before the file is stored: each chunk's text is hashed
 * (SHA-256 of the text as stored, as `chunks.text_sha` is computed), the collection's vectors of
 * the job's model that exist already are found, and only the missing texts are embedded, a batch
 * at a time, each batch committed at once. So a job that dies mid-file finds its vectors on the
 * retry and embeds nothing twice, and a re-index of unchanged text embeds nothing at all.
 */
import { createHash } from 'node:crypto';
import type { Knex } from '../shared/db.ts';
import { BotwireError } from '../shared/errors.ts';
import type { EmbeddingProvider } from '../shared/embeddings/provider.ts';
import { pgvectorOf } from '../shared/embeddings/nearest.ts';
import { ensureHnswIndex, fillMissingPgv, pgvColumn } from '../shared/embeddings/pgvector.ts';
import { vectorBytes } from '../shared/embeddings/vectors.ts';
import { storable } from '../shared/pg-text.ts';
import { lockCollectionJobs } from '../shared/knowledge/jobs.ts';

/** Jobs whose collection's vectors lacking `pgv` were given it (bounded: the newest thousand). */
const filledFor = new Set<string>();

/** Hashes looked up per statement. */
const LOOKUP_BATCH = 1000;

/** SHA-256 of a chunk's stored text, as Postgres computes `sha256(convert_to(text, 'UTF8'))`. */
export function textSha(text: string): Buffer {
  return createHash('sha256').update(storable(text), 'utf8').digest();
}

export interface EmbedArgs {
  collectionId: string;
  provider: EmbeddingProvider;
  texts: readonly string[];
  jobId: string;
  signal?: AbortSignal;
}

/** Embeds the texts that have no vector yet; returns how many it embedded. */
export async function embedChunks(db: Knex, args: EmbedArgs): Promise<number> {
  const { collectionId, provider, jobId, signal } = args;
  const model = provider.model;
  // With pgvector each vector is also stored as its type, for the HNSW index (pgvector.ts); the
  // collection's vectors stored without it get it, once per job.
  const pgv = await pgvectorOf(db);
  if (pgv && !filledFor.has(jobId)) {
    if (filledFor.size >= 1000) filledFor.clear();
    filledFor.add(jobId);
    await fillMissingPgv(db, pgv, collectionId);
  }
  const missing = new Map<string, string>(); // hex sha -> text
  for (const text of args.texts) missing.set(textSha(text).toString('hex'), text);
  const shas = [...missing.keys()];
  for (let start = 0; start < shas.length; start += LOOKUP_BATCH) {
    const { rows } = await db.raw<{ rows: { sha: string }[] }>(
      `select encode(text_sha, 'hex') as sha from chunk_vectors
       where collection_id = ? and model = ?
         and text_sha in (select decode(h, 'hex') from unnest(?::text[]) h)`,
      [collectionId, model, shas.slice(start, start + LOOKUP_BATCH)],
    );
    for (const { sha } of rows) missing.delete(sha);
  }
  if (missing.size === 0) return 0;
  const known = await db('chunk_vectors')
    .where({ collection_id: collectionId, model })
    .first<{ dims: number } | undefined>('dims');
  let dims = known?.dims;
  const todo = [...missing.entries()];
  let made = 0;
  // One provider call's worth at a time (EMBEDDINGS_BATCH for an API), each committed at once.
  for (let start = 0; start < todo.length; start += provider.batch) {
    const batch = todo.slice(start, start + provider.batch);
    const vectors = await provider.embed(
      batch.map(([, text]) => storable(text)),
      signal,
    );
    for (const vector of vectors) {
      dims ??= vector.length;
      if (vector.length !== dims) {
        throw new BotwireError(
          'BW_ERR_EMBEDDINGS_INVALID',
          `the model ${model} made a vector of ${vector.length} dimensions; the collection's vectors of it have ${dims}`,
        );
      }
    }
    if (pgv && dims !== undefined) await ensureHnswIndex(db, pgv, dims);
    const rows = batch.map(([sha], i) => ({
      collection_id: collectionId,
      model,
      text_sha: Buffer.from(sha, 'hex'),
      dims,
      embedding: vectorBytes(vectors[i]!),
      ...pgvColumn(db, pgv, vectors[i]!),
    }));
    await db.transaction(async (trx) => {
      const inserted = await trx('chunk_vectors')
        .insert(rows)
        .onConflict(['collection_id', 'model', 'text_sha'])
        .ignore()
        .returning('text_sha');
      await trx('index_jobs')
        .where({ id: jobId })
        .update({ vectors_made: trx.raw('vectors_made + ?', [inserted.length]) });
      made += inserted.length;
    });
  }
  return made;
}

/**
 * Embeds the searchable chunks of `files` (the files a job failed, whose previous chunks the swap
 * carries over) that have no vector of the provider's model yet; returns how many it embedded.
 */
export async function embedKeptChunks(
  db: Knex,
  args: Omit<EmbedArgs, 'texts'> & { files: readonly string[] },
): Promise<number> {
  const rows: { text: string }[] = await db('chunks')
    .where({ collection_id: args.collectionId })
    .whereRaw('generation = (select active_generation from collections where id = ?)', [
      args.collectionId,
    ])
    .whereIn('file', [...args.files])
    .select('text');
  if (rows.length === 0) return 0;
  return embedChunks(db, {
    collectionId: args.collectionId,
    provider: args.provider,
    jobId: args.jobId,
    ...(args.signal ? { signal: args.signal } : {}),
    texts: rows.map((row) => row.text),
  });
}

/**
 * Deletes the collection's vectors that no chunk of its active generation uses (of another model,
 * or of text gone in a re-index), `batch` rows per statement; returns how many went. Nothing is
 * deleted while another job of the collection is queued or running: it may have made vectors it
 * has not stored chunks for yet, or found old ones it is about to use. The last job to finish
 * cleans up. Each batch looks for such jobs again, in one transaction with its deletion under the
 * lock new jobs are recorded under (`lockCollectionJobs`), so a job created while the clean-up
 * runs stops it before it can lose a vector.
 */
export async function deleteUnusedVectors(
  db: Knex,
  collectionId: string,
  jobId: string,
  batch = 10_000,
): Promise<number> {
  const collection: { name: string } | undefined = await db('collections')
    .where({ id: collectionId })
    .first('name');
  if (!collection) return 0;
  let deleted = 0;
  for (;;) {
    const rowCount = await db.transaction(async (trx) => {
      await lockCollectionJobs(trx, collection.name);
      const other: { id: string } | undefined = await trx('index_jobs')
        .where('collection_name', collection.name)
        .whereNot('id', jobId)
        .whereIn('status', ['queued', 'running'])
        .first<{ id: string } | undefined>('id');
      if (other) return 0;
      const { rowCount: count } = await trx.raw<{ rowCount: number }>(
        `with c as (select vectors_model, active_generation from collections where id = :collection)
         delete from chunk_vectors where collection_id = :collection and (model, text_sha) in (
           select v.model, v.text_sha from chunk_vectors v, c
           where v.collection_id = :collection and (
             v.model is distinct from c.vectors_model
             or not exists (select 1 from chunks ch where ch.collection_id = :collection
                              and ch.generation = c.active_generation and ch.text_sha = v.text_sha))
           limit :batch)`,
        { collection: collectionId, batch },
      );
      return count;
    });
    deleted += rowCount;
    if (rowCount < batch) return deleted;
  }
}

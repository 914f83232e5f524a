/**
 * Knowledge collection routes: upload documents, start indexing (the same work as an `indexer`
 * topic message: the api records the job and publishes the message), follow a job, search.
 */
import { readdir } from 'node:fs/promises';
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import { BotwireError } from '../../shared/errors.ts';
import type { Ownership } from '../../shared/knowledge/access.ts';
import type { EmbeddingChoice } from '../../shared/embeddings/provider.ts';
import {
  createJob,
  findJob,
  jobView,
  MAX_JOB_FILES,
  newJobId,
  overlapTooLarge,
  type JobOptions,
} from '../../shared/knowledge/jobs.ts';
import {
  checkCollectionName,
  collectionDir,
  documentExtension,
} from '../../shared/knowledge/names.ts';
import { MAX_K } from '../../shared/knowledge/search.ts';
import { SEARCH_MODES, searchKnowledge, type SearchMode } from '../../shared/knowledge/hybrid.ts';
import { listUnanswered } from '../../shared/knowledge/unanswered.ts';
import type { Edge } from '../edge.ts';
import { afterOf, limitOf, pageOf } from './paging.ts';
import { receiveUpload } from './uploads.ts';
import { hasBody, type ReadBody } from '../body.ts';

interface IndexBody extends JobOptions {
  files?: string[];
}

/** What `PATCH /v2/collections/<name>` sets. */
interface CollectionSettings extends Ownership {
  embedding_model: EmbeddingChoice | null;
  min_similarity: number | null;
}

const SETTING_KEYS = ['owner_app_id', 'shared', 'embedding_model', 'min_similarity'] as const;

const pick = (row: CollectionSettings): CollectionSettings => ({
  owner_app_id: row.owner_app_id,
  shared: row.shared,
  embedding_model: row.embedding_model,
  min_similarity: row.min_similarity,
});

function nameOf(ctx: Context & { params: Record<string, string> }): string {
  return checkCollectionName(ctx.params.name ?? '');
}

/** The documents uploaded to a collection, by name. */
async function uploadedFiles(storageDir: string, collection: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(collectionDir(storageDir, collection));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((n) => !n.startsWith('.') && documentExtension(n) !== undefined).sort();
}

function queryError(path: string, message: string): BotwireError {
  return new BotwireError('BW_ERR_SCHEMA', `${path.slice(7)} ${message}`, {
    details: { problems: [{ path, message }] },
  });
}

/**
 * Records an indexing job of `files` and publishes it on the `indexer` topic; returns its id.
 * @throws BotwireError `BW_ERR_NOT_FOUND` without files, `BW_ERR_SCHEMA` over the job's file cap,
 *   `BW_ERR_UNAVAILABLE` when the topic cannot take it (the job is recorded failed).
 */
async function startIndexJob(
  edge: Edge,
  collection: string,
  files: string[],
  options: JobOptions,
): Promise<string> {
  if (files.length === 0) {
    throw new BotwireError(
      'BW_ERR_NOT_FOUND',
      `the collection "${collection}" has no uploaded documents; upload with POST /v2/collections/${collection}/files`,
    );
  }
  if (files.length > MAX_JOB_FILES) {
    // Refused before a job is recorded: the indexer topic's schema would refuse the message.
    throw new BotwireError(
      'BW_ERR_SCHEMA',
      `one job indexes at most ${MAX_JOB_FILES} files; the collection has ${files.length}: name the files in batches`,
      { details: { problems: [{ path: '/files', message: `at most ${MAX_JOB_FILES}` }] } },
    );
  }
  const jobId = newJobId();
  await createJob(edge.db, { jobId, collection, files, options });
  try {
    await edge.producer.publish('indexer', {
      collection_name: collection,
      files,
      ...options,
      job_id: jobId,
    });
  } catch (error) {
    await edge
      .db('index_jobs')
      .where({ job_id: jobId })
      .update({
        status: 'failed',
        error: 'not queued: the job queue was unavailable',
        finished_at: edge.db.fn.now(),
      })
      .catch(() => undefined);
    throw error;
  }
  return jobId;
}

export function collectionRoutes(router: Router, edge: Edge, readBody: ReadBody): void {
  router.post('/v2/collections/:name/files', async (ctx) => {
    const collection = nameOf(ctx);
    const files = await receiveUpload(
      ctx,
      edge.storageDir,
      collection,
      edge.maxDocumentBytes,
      edge.uploadQuota,
    );
    ctx.state.audit = { after: { files } };
    ctx.status = 201;
    ctx.body = { collection, files };
  });

  router.get('/v2/collections/:name', async (ctx) => {
    const collection = nameOf(ctx);
    const [row, files, lastJob] = await Promise.all([
      edge
        .db<{
          name: string;
          language: string;
          file_count: number;
          chunk_count: number;
          indexed_at: Date | null;
          owner_app_id: string | null;
          shared: boolean;
          embedding_model: EmbeddingChoice | null;
          vectors_model: string | null;
          min_similarity: number | null;
        }>('collections')
        .where({ name: collection })
        .first(),
      uploadedFiles(edge.storageDir, collection),
      edge
        .db<{ collection_name: string; id: string; job_id: string; status: string }>('index_jobs')
        .where({ collection_name: collection })
        .orderBy('id', 'desc')
        .first('job_id', 'status'),
    ]);
    const r = row;
    if (!r && files.length === 0)
      throw new BotwireError('BW_ERR_NOT_FOUND', `no collection named "${collection}"`);
    ctx.body = {
      collection,
      // A collection not yet indexed nor patched has no row: the defaults of a new one.
      owner_app_id: r?.owner_app_id ?? null,
      shared: r?.shared ?? false,
      embedding_model: r?.embedding_model ?? null,
      // What a null setting means in this deployment.
      embedding_model_effective: r?.embedding_model ?? edge.knowledge.embedders.defaultChoice,
      min_similarity: r?.min_similarity ?? null,
      min_similarity_effective: r?.min_similarity ?? edge.knowledge.minSimilarity,
      uploaded_files: files,
      indexed: r
        ? {
            language: r.language,
            files: r.file_count,
            chunks: r.chunk_count,
            at: r.indexed_at,
            vectors_model: r.vectors_model,
          }
        : null,
      last_job: lastJob ?? null,
    };
  });

  router.patch('/v2/collections/:name', async (ctx) => {
    const collection = nameOf(ctx);
    const input = await readBody<Partial<CollectionSettings>>(ctx, 'http/patch-collection');
    const owner = input.owner_app_id;
    if (typeof owner === 'string') {
      const bot = await edge
        .db<{ app_id: string }>('bots')
        .where({ app_id: owner })
        .first('app_id');
      if (!bot) throw new BotwireError('BW_ERR_NOT_FOUND', `no bot has app_id "${owner}"`);
    }
    if (input.embedding_model === 'api' && !edge.knowledge.embedders.forChoice('api')) {
      throw new BotwireError(
        'BW_ERR_SEARCH_MODE',
        'embedding_model "api" needs an embeddings API: set EMBEDDINGS_API_URL (every api, indexer and retriver process)',
      );
    }
    const changes: Partial<CollectionSettings> = Object.fromEntries(
      SETTING_KEYS.filter((key) => input[key] !== undefined).map((key) => [key, input[key]]),
    );
    const previous = await edge
      .db<
        CollectionSettings & {
          name: string;
          active_generation: string | null;
          vectors_model: string | null;
        }
      >('collections')
      .where({ name: collection })
      .first(...SETTING_KEYS, 'active_generation', 'vectors_model');
    const row = await edge.db.transaction(async (trx) => {
      // As the indexer creates collections (src/indexer/store.ts ensureCollection): the lock its
      // partition's trigger needs is taken first, so two creations wait instead of deadlocking.
      const known = await trx<{ id: string; name: string }>('collections')
        .where({ name: collection })
        .first('id');
      if (!known) await trx.raw('lock table collections in share row exclusive mode');
      const rows: CollectionSettings[] = await trx('collections')
        .insert({ name: collection, ...changes })
        .onConflict('name')
        .merge(Object.keys(changes))
        .returning([...SETTING_KEYS]);
      return rows[0]!;
    });
    // Vectors of two models never mix: a collection whose content was embedded by another model
    // than the one the new choice means in this deployment is re-embedded by a new job.
    const { embedders } = edge.knowledge;
    const meant = embedders.forChoice(row.embedding_model ?? embedders.defaultChoice);
    const remodel =
      input.embedding_model !== undefined &&
      previous?.active_generation != null &&
      (meant?.model ?? null) !== (previous.vectors_model ?? null);
    const reindexJob = remodel
      ? await startIndexJob(edge, collection, await uploadedFiles(edge.storageDir, collection), {})
      : undefined;
    const { embedding_model, min_similarity, ...ownership } = row;
    ctx.state.audit = {
      before: previous ? { ...pick(previous) } : {},
      after: { ...row, ...(reindexJob ? { reindex_job_id: reindexJob } : {}) },
    };
    ctx.body = {
      collection,
      ...ownership,
      embedding_model,
      min_similarity: min_similarity === null ? null : Number(min_similarity),
      ...(reindexJob ? { reindex_job_id: reindexJob } : {}),
    };
  });

  router.post('/v2/collections/:name/index', async (ctx) => {
    const collection = nameOf(ctx);
    const input = hasBody(ctx) ? await readBody<IndexBody>(ctx, 'http/index-collection') : {};
    const { files: named, ...options } = input;
    if (overlapTooLarge(options)) {
      throw new BotwireError('BW_ERR_SCHEMA', 'chunk_overlap may be at most half of chunk_size', {
        details: {
          problems: [{ path: '/chunk_overlap', message: 'must be at most chunk_size / 2' }],
        },
      });
    }
    const files = named ?? (await uploadedFiles(edge.storageDir, collection));
    const jobId = await startIndexJob(edge, collection, files, options);
    ctx.state.audit = { after: { job_id: jobId, files, ...options } };
    ctx.status = 202;
    ctx.set('Location', `/v2/index-jobs/${jobId}`);
    ctx.body = { job_id: jobId, collection, files, status: 'queued' };
  });

  router.get('/v2/index-jobs/:job_id', async (ctx) => {
    const jobId = ctx.params.job_id ?? '';
    const row = /^[A-Za-z0-9_-]{1,128}$/.test(jobId) ? await findJob(edge.db, jobId) : undefined;
    if (!row) throw new BotwireError('BW_ERR_NOT_FOUND', 'no indexing job has this id');
    ctx.body = jobView(row);
  });

  router.get('/v2/collections/:name/search', async (ctx) => {
    const collection = nameOf(ctx);
    const { q, k: rawK, mode: rawMode } = ctx.query;
    if (typeof q !== 'string' || q.trim() === '' || q.length > 2000) {
      throw queryError('/query/q', 'is required: 1 to 2000 characters');
    }
    const k = rawK === undefined ? 5 : Number(rawK);
    if (!Number.isInteger(k) || k < 1 || k > MAX_K) {
      throw queryError('/query/k', `must be an integer from 1 to ${MAX_K}`);
    }
    if (rawMode !== undefined && !SEARCH_MODES.includes(rawMode as SearchMode)) {
      throw queryError('/query/mode', `must be one of ${SEARCH_MODES.join(', ')}`);
    }
    const result = await searchKnowledge(
      edge.knowledge,
      collection,
      q,
      k,
      rawMode as SearchMode | undefined,
    );
    // Named by name: the collection's internal id stays inside.
    ctx.body = {
      collection: result.collection,
      language: result.language,
      mode: result.mode,
      vectors_model: result.vectors_model,
      min_similarity: result.min_similarity,
      query: q,
      k,
      hits: result.hits,
    };
  });

  router.get('/v2/collections/:name/unanswered', async (ctx) => {
    const collection = nameOf(ctx);
    const limit = limitOf(ctx);
    const after = afterOf(ctx, /^[1-9]\d{0,17}$/);
    const row = await edge
      .db<{ id: string; name: string }>('collections')
      .where({ name: collection })
      .first('id');
    if (!row) throw new BotwireError('BW_ERR_NOT_FOUND', `no collection named "${collection}"`);
    const rows = await listUnanswered(edge.db, row.id, {
      limit: limit + 1,
      ...(after ? { before: after } : {}),
    });
    ctx.body = { collection, ...pageOf(rows, limit, (question) => question.id) };
  });
}

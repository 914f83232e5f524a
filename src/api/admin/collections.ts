/**
 * Knowledge collection routes: upload documents, start indexing (the same work as an `indexer`
 * topic message: the api records the job and publishes the message), follow a job, search.
 */
import { readdir } from 'node:fs/promises';
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import { BotwireError } from '../../shared/errors.ts';
import type { Ownership } from '../../shared/knowledge/access.ts';
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
import { CollectionCache, MAX_K, searchCollection } from '../../shared/knowledge/search.ts';
import type { Edge } from '../edge.ts';
import { receiveUpload } from './uploads.ts';
import type { ReadBody } from '../body.ts';

interface IndexBody extends JobOptions {
  files?: string[];
}

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

export function collectionRoutes(router: Router, edge: Edge, readBody: ReadBody): void {
  const collections = new CollectionCache(); // what this process last saw of the ones searched
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
      uploaded_files: files,
      indexed: r
        ? { language: r.language, files: r.file_count, chunks: r.chunk_count, at: r.indexed_at }
        : null,
      last_job: lastJob ?? null,
    };
  });

  router.patch('/v2/collections/:name', async (ctx) => {
    const collection = nameOf(ctx);
    const input = await readBody<Partial<Ownership>>(ctx, 'http/patch-collection');
    const owner = input.owner_app_id;
    if (typeof owner === 'string') {
      const bot = await edge
        .db<{ app_id: string }>('bots')
        .where({ app_id: owner })
        .first('app_id');
      if (!bot) throw new BotwireError('BW_ERR_NOT_FOUND', `no bot has app_id "${owner}"`);
    }
    const changes: Partial<Ownership> = {
      ...(owner !== undefined ? { owner_app_id: owner } : {}),
      ...(input.shared !== undefined ? { shared: input.shared } : {}),
    };
    const previous = await edge
      .db<Ownership & { name: string }>('collections')
      .where({ name: collection })
      .first('owner_app_id', 'shared');
    const row = await edge.db.transaction(async (trx) => {
      // As the indexer creates collections (src/indexer/store.ts ensureCollection): the lock its
      // partition's trigger needs is taken first, so two creations wait instead of deadlocking.
      const known = await trx<{ id: string; name: string }>('collections')
        .where({ name: collection })
        .first('id');
      if (!known) await trx.raw('lock table collections in share row exclusive mode');
      const rows: Ownership[] = await trx('collections')
        .insert({ name: collection, ...changes })
        .onConflict('name')
        .merge(Object.keys(changes))
        .returning(['owner_app_id', 'shared']);
      return rows[0];
    });
    ctx.state.audit = { before: previous ? { ...previous } : {}, after: { ...row } };
    ctx.body = { collection, ...row };
  });

  router.post('/v2/collections/:name/index', async (ctx) => {
    const collection = nameOf(ctx);
    const hasBody =
      Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
    const input = hasBody ? await readBody<IndexBody>(ctx, 'http/index-collection') : {};
    const { files: named, ...options } = input;
    if (overlapTooLarge(options)) {
      throw new BotwireError('BW_ERR_SCHEMA', 'chunk_overlap may be at most half of chunk_size', {
        details: {
          problems: [{ path: '/chunk_overlap', message: 'must be at most chunk_size / 2' }],
        },
      });
    }
    const files = named ?? (await uploadedFiles(edge.storageDir, collection));
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
    const { q, k: rawK } = ctx.query;
    if (typeof q !== 'string' || q.trim() === '' || q.length > 2000) {
      throw queryError('/query/q', 'is required: 1 to 2000 characters');
    }
    const k = rawK === undefined ? 5 : Number(rawK);
    if (!Number.isInteger(k) || k < 1 || k > MAX_K) {
      throw queryError('/query/k', `must be an integer from 1 to ${MAX_K}`);
    }
    const result = await searchCollection(edge.db, collection, q, k, { cache: collections });
    ctx.body = { ...result, query: q, k };
  });
}

/**
 * The list of knowledge collections and of one collection's indexing jobs, in pages. A collection
 * is listed once it has a row (indexed, or its ownership set) or uploaded documents in STORAGE_DIR;
 * names are in code-point order, which is the order of the `after` cursor.
 */
import { readdir } from 'node:fs/promises';
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import type { Knex } from '../../shared/db.ts';
import { BotwireError } from '../../shared/errors.ts';
import {
  checkCollectionName,
  COLLECTION_NAME,
  collectionDir,
  documentExtension,
} from '../../shared/knowledge/names.ts';
import type { Edge } from '../edge.ts';
import { afterOf, limitOf, pageOf } from './paging.ts';

interface CollectionRow {
  name: string;
  owner_app_id: string | null;
  shared: boolean;
  language: string;
  files: number;
  chunks: number;
  indexed_at: Date | null;
  updated_at: Date | null;
  last_job_id: string | null;
  last_job_status: string | null;
}

/** Names of the collections with a folder in STORAGE_DIR, in code-point order. */
async function storedCollections(storageDir: string): Promise<string[]> {
  try {
    const entries = await readdir(storageDir, { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory() && COLLECTION_NAME.test(e.name))
      .map((e) => e.name)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** How many documents are uploaded to a collection. */
async function uploadedCount(storageDir: string, collection: string): Promise<number> {
  try {
    const names = await readdir(collectionDir(storageDir, collection));
    return names.filter((n) => !n.startsWith('.') && documentExtension(n) !== undefined).length;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

// The last job of each collection listed: by the index on index_jobs (collection_name), newest id.
const LAST_JOB = `left join lateral (
  select j.job_id, j.status, j.created_at, j.finished_at from index_jobs j
  where j.collection_name = n.name order by j.id desc limit 1
) j on true`;

async function collectionRows(db: Knex, names: readonly string[]): Promise<CollectionRow[]> {
  if (names.length === 0) return [];
  const { rows } = await db.raw<{ rows: CollectionRow[] }>(
    `select n.name, c.owner_app_id, coalesce(c.shared, false) as shared, c.language,
       coalesce(c.file_count, 0) as files, coalesce(c.chunk_count, 0) as chunks, c.indexed_at,
       greatest(c.indexed_at, c.created_at, j.created_at, j.finished_at) as updated_at,
       j.job_id as last_job_id, j.status as last_job_status
     from jsonb_array_elements_text(?::jsonb) as n(name)
     left join collections c on c.name = n.name
     ${LAST_JOB}
     order by n.name collate "C"`,
    [JSON.stringify(names)],
  );
  return rows;
}

/** A page of collections after the name `after`, from the rows and the storage folder. */
async function listCollections(
  edge: Edge,
  limit: number,
  after?: string,
): Promise<{ items: Record<string, unknown>[]; next_after: string | null }> {
  const query = edge
    .db('collections')
    .select('name')
    .orderByRaw('name collate "C"')
    .limit(limit + 1);
  if (after) void query.whereRaw('name collate "C" > ?', [after]);
  const [known, stored] = await Promise.all([
    query as Promise<{ name: string }[]>,
    storedCollections(edge.storageDir),
  ]);
  const names = [
    ...new Set([
      ...known.map((r) => r.name),
      ...stored.filter((name) => after === undefined || name > after),
    ]),
  ]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, limit + 1);
  const page = pageOf(names, limit, (name) => name);
  const rows = await collectionRows(edge.db, page.items);
  const items = await Promise.all(
    rows.map(async (r) => ({
      name: r.name,
      owner_app_id: r.owner_app_id,
      shared: r.shared,
      language: r.language ?? null,
      files: Number(r.files),
      chunks: Number(r.chunks),
      uploaded_files: await uploadedCount(edge.storageDir, r.name),
      indexed_at: r.indexed_at,
      updated_at: r.updated_at,
      last_job: r.last_job_id ? { job_id: r.last_job_id, status: r.last_job_status } : null,
    })),
  );
  return { items, next_after: page.next_after };
}

/** Job ids are paged by the job row's numeric id. */
const JOB_CURSOR = /^\d{1,19}$/;

function nameOf(ctx: Context & { params: Record<string, string> }): string {
  return checkCollectionName(ctx.params.name ?? '');
}

export function collectionListRoutes(router: Router, edge: Edge): void {
  router.get('/v2/collections', async (ctx) => {
    ctx.body = await listCollections(edge, limitOf(ctx), afterOf(ctx, COLLECTION_NAME));
  });

  router.get('/v2/collections/:name/jobs', async (ctx) => {
    const collection = nameOf(ctx);
    const limit = limitOf(ctx);
    const after = afterOf(ctx, JOB_CURSOR);
    const query = edge
      .db('index_jobs')
      .where({ collection_name: collection })
      .select(
        'id',
        'job_id',
        'status',
        'files_total',
        'files_done',
        'chunks_done',
        edge.db.raw(
          `(select count(*)::int from jsonb_each(outcome) o where o.value->>'status' = 'failed') as files_failed`,
        ),
        'error',
        'attempts',
        'created_at',
        'started_at',
        'finished_at',
      )
      .orderBy('id', 'desc')
      .limit(limit + 1);
    if (after) void query.where('id', '<', after);
    const rows = (await query) as (Record<string, unknown> & { id: string; error: unknown })[];
    if (rows.length === 0 && !after) {
      const [known, uploaded] = await Promise.all([
        edge
          .db<{ id: string; name: string }>('collections')
          .where({ name: collection })
          .first('id'),
        uploadedCount(edge.storageDir, collection),
      ]);
      if (!known && uploaded === 0)
        throw new BotwireError('BW_ERR_NOT_FOUND', `no collection named "${collection}"`);
    }
    const page = pageOf(rows, limit, (row) => String(row.id));
    ctx.body = {
      items: page.items.map(({ id: _id, error, ...job }) => ({
        ...job,
        collection,
        error: error ?? null,
      })),
      next_after: page.next_after,
    };
  });
}

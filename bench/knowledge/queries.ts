/**
 * Query latency: a collection of many chunks built through the indexer's own chunk and store code
 * (no files: generated pages and rows go straight to `chunkPages`/`chunkSheets` and `storeFile`,
 * under a job created, begun and finished like `runIndexJob` does), then k=5 searches with
 * realistic queries through `searchCollection` and through `GET /v2/collections/<name>/search`.
 */
import { chunkPages, chunkSheets } from '../../src/indexer/chunk.ts';
import type { SheetRows } from '../../src/indexer/extract/index.ts';
import { chooseLanguage } from '../../src/indexer/language.ts';
import {
  beginAttempt,
  ensureCollection,
  finishJob,
  reloadJob,
  storeFile,
  type StoredChunk,
} from '../../src/indexer/store.ts';
import type { Knex } from '../../src/shared/db.ts';
import { createJob } from '../../src/shared/knowledge/jobs.ts';
import { CollectionCache, searchCollection } from '../../src/shared/knowledge/search.ts';
import { HEADER, pageText, sheetRow } from './corpus.ts';
import { NON_ASCII, pick, type Random, type TextModel } from './text.ts';

/** Pages per stored "file" of the bulk collection, and rows per stored "workbook". */
const PAGES_PER_FILE = 200;
const ROWS_PER_FILE = 5000;

export interface BuiltCollection {
  chunks: number;
  seconds: number;
  language: string;
}

/**
 * Builds `collection` with at least `target` chunks, half from pages of prose and half from
 * spreadsheet rows, and makes it the active generation (the swap of `finishJob`).
 */
export async function buildCollection(
  db: Knex,
  collection: string,
  model: TextModel,
  random: Random,
  target: number,
): Promise<BuiltCollection> {
  const start = performance.now();
  const jobId = `job_bench_${collection}`;
  await createJob(db, { jobId, collection, files: [], options: {} });
  const job = await beginAttempt(db, jobId);
  if (!job) throw new Error(`job ${jobId} could not begin`);
  const collectionId = await ensureCollection(db, collection);
  let language: string | undefined;
  let stored = { pages: 0, rows: 0 };
  for (let file = 1; stored.pages + stored.rows < target; file += 1) {
    const rowsTurn = stored.rows < stored.pages;
    let chunks: StoredChunk[];
    let name: string;
    if (rowsTurn) {
      name = `bulk-${file}.xlsx`;
      const sheet: SheetRows = { sheet: 'Orders', header: HEADER, rows: [] };
      for (let r = 0; r < ROWS_PER_FILE; r += 1) {
        const values = sheetRow(model, random, file * ROWS_PER_FILE + r);
        const cells = Object.fromEntries(HEADER.map((h, i) => [h, String(values[i])]));
        sheet.rows.push({ row: r + 2, cells });
      }
      chunks = chunkSheets([sheet]).map((c) => ({
        text: c.text,
        sheet: c.source.sheet,
        rows: c.source.rows,
      }));
      stored = { ...stored, rows: stored.rows + chunks.length };
    } else {
      name = `bulk-${file}.pdf`;
      const pages = Array.from({ length: PAGES_PER_FILE }, (_, i) => ({
        page: i + 1,
        text: pageText(model, random).join('\n\n'),
      }));
      chunks = chunkPages(pages).map((c) => ({ text: c.text, page: c.source.page }));
      stored = { ...stored, pages: stored.pages + chunks.length };
    }
    language ??= await chooseLanguage(db, chunks.map((c) => c.text).join('\n'));
    await storeFile(db, {
      job,
      collectionId,
      file: name,
      language,
      chunks,
      outcome: { status: 'indexed', chunks: chunks.length },
    });
  }
  const finish = await finishJob(db, await reloadJob(db, job), collectionId, language ?? 'simple');
  return {
    chunks: finish.chunks,
    seconds: (performance.now() - start) / 1000,
    language: language ?? 'simple',
  };
}

export type QueryKind = 'word' | 'words' | 'phrase' | 'prefix' | 'non-ascii' | 'no match';
export const QUERY_KINDS: QueryKind[] = [
  'word',
  'words',
  'phrase',
  'prefix',
  'non-ascii',
  'no match',
];

export interface Query {
  kind: QueryKind;
  q: string;
}

/** A word of the training text, drawn as often as it occurs there (so common words come often). */
function textWord(model: TextModel, random: Random, minLength = 1): string {
  for (;;) {
    const word = pick(random, pick(random, model.sentences));
    if (word !== ',' && word.length >= minLength) return word.toLowerCase();
  }
}

/** Queries of each kind in turn (see README.md for what each kind is). */
export function makeQueries(model: TextModel, random: Random, count: number): Query[] {
  const queries: Query[] = [];
  for (let i = 0; i < count; i += 1) {
    const kind = QUERY_KINDS[i % QUERY_KINDS.length]!;
    let q: string;
    switch (kind) {
      case 'word':
        q = textWord(model, random, 3);
        break;
      case 'words': {
        const n = 2 + Math.floor(random() * 3);
        q = Array.from({ length: n }, () => textWord(model, random, 3)).join(' ');
        break;
      }
      case 'phrase': {
        const words = pick(random, model.sentences).filter((w) => w !== ',');
        const n = Math.min(words.length, 2 + Math.floor(random() * 3));
        const at = Math.floor(random() * (words.length - n + 1));
        q = `"${words.slice(at, at + n).join(' ')}"`;
        break;
      }
      case 'prefix': {
        const word = textWord(model, random, 6);
        q = word.slice(0, 3 + Math.floor(random() * 3));
        break;
      }
      case 'non-ascii':
        q = `${pick(random, NON_ASCII)} ${random() < 0.5 ? textWord(model, random, 3) : ''}`.trim();
        break;
      case 'no match': {
        const letters = 'bcdfghjklmnpqrstvwxz';
        const n = 1 + Math.floor(random() * 2);
        q = Array.from({ length: n }, () =>
          Array.from({ length: 7 }, () => pick(random, [...letters])).join(''),
        ).join(' ');
        break;
      }
    }
    queries.push({ kind, q });
  }
  return queries;
}

export interface Timed {
  kind: QueryKind;
  ms: number;
  hits: number;
}

/** Runs the queries one after another; returns each one's latency and hit count. */
export async function timeQueries(
  queries: Query[],
  search: (q: string) => Promise<number>,
): Promise<Timed[]> {
  const timed: Timed[] = [];
  for (const { kind, q } of queries) {
    const start = performance.now();
    const hits = await search(q);
    timed.push({ kind, ms: performance.now() - start, hits });
  }
  return timed;
}

/** `searchCollection` with k = 5 and a collection cache, as the retriver calls it; returns the hit count. */
export const directSearch = (db: Knex, collection: string) => {
  const cache = new CollectionCache();
  return async (q: string): Promise<number> =>
    (await searchCollection(db, collection, q, 5, { cache })).hits.length;
};

/** `GET /v2/collections/<name>/search?q=&k=5`; returns the hit count. */
export const httpSearch =
  (origin: string, adminKey: string, collection: string) =>
  async (q: string): Promise<number> => {
    const url = `${origin}/v2/collections/${collection}/search?q=${encodeURIComponent(q)}&k=5`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${adminKey}` } });
    const body = (await response.json()) as { hits?: unknown[] };
    if (response.status !== 200) throw new Error(`search answered ${response.status}`);
    return body.hits?.length ?? 0;
  };

/**
 * Search latency by mode on a collection of `BENCH_SEARCH_CHUNKS` chunks (default 100,000), in one
 * run: words, semantic and hybrid through `searchKnowledge`, as the retriver and the API call it,
 * each with p50/p99 and its ratio to words, plus the time of embedding the question alone and of
 * loading the vector index. The chunks are the knowledge bench's generated text
 * (`buildCollection`); their vectors are mixtures of the embedded model's vectors of generated
 * sentences (three at random weights plus noise, as in vectors.ts), since embedding 100,000
 * chunks takes hours; questions are embedded by the real model. Where the scratch database has
 * pgvector, semantic and hybrid run with both vector indexes (in memory and pgvector's HNSW) in the
 * same run, each with its recall@10 against the exact float search, its memory and its build time.
 * Prints the machine's load.
 *
 *   node --import tsx bench/knowledge/hybrid.ts
 */
import { loadavg } from 'node:os';
import { createDb, type Knex } from '../../src/shared/db.ts';
import { createEmbedders } from '../../src/shared/embeddings/embedders.ts';
import { LOCAL_ONLY } from '../../test/support/knowledge-fixtures.ts';
import { LOCAL_MODEL } from '../../src/shared/embeddings/local-provider.ts';
import { createNearestChunks, pgvectorOf } from '../../src/shared/embeddings/nearest.ts';
import {
  EF_SEARCH,
  ensureHnswIndex,
  hnswIndexName,
  pgvColumn,
} from '../../src/shared/embeddings/pgvector.ts';
import { dot, vectorBytes } from '../../src/shared/embeddings/vectors.ts';
import { searchKnowledge, type SearchMode } from '../../src/shared/knowledge/hybrid.ts';
import { CollectionCache } from '../../src/shared/knowledge/search.ts';
import { cleanups, commonOptions, intEnv, openScratch, runBench } from '../lib/setup.ts';
import { mixtures } from './mixtures.ts';
import { buildCollection, makeQueries } from './queries.ts';
import { loadModel, prng, sentence } from './text.ts';

const options = {
  chunks: intEnv('BENCH_SEARCH_CHUNKS', 100_000, 1),
  queries: intEnv('BENCH_QUERIES', 300, 1),
  seed: intEnv('BENCH_SEED', 1, 0),
  ...commonOptions(),
};

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

async function main(): Promise<void> {
  const { databaseUrl } = await openScratch(options, 'bench-hybrid');
  // Room to build an HNSW index of 100,000 vectors in memory (it slows down once it spills).
  const url = new URL(databaseUrl);
  url.searchParams.set('options', '-c maintenance_work_mem=1GB');
  const db = createDb(url.toString(), { poolMax: 4 });
  cleanups.push({ what: 'scratch database pool', run: () => db.destroy() });
  const embedders = createEmbedders(LOCAL_ONLY);
  cleanups.push({ what: 'embedding model', run: () => embedders.close() });
  const local = embedders.forChoice('local')!;
  const model = loadModel();
  const random = prng(options.seed);

  console.error(`bench: storing a collection of ${options.chunks} chunks`);
  await buildCollection(db, 'bench-hybrid', model, random, options.chunks);
  const collection = await db<{ id: string; name: string; active_generation: string }>(
    'collections',
  )
    .where({ name: 'bench-hybrid' })
    .first('id', 'active_generation');
  if (!collection) throw new Error('the bench collection was not stored');
  console.error('bench: giving each chunk a vector');
  const bases = await local.embed(Array.from({ length: 200 }, () => sentence(model, random)));
  const dims = bases[0]!.length;
  const mixture = mixtures(bases, random);
  const shas: { text_sha: Buffer }[] = await db('chunks')
    .where({ collection_id: collection.id, generation: collection.active_generation })
    .distinct('text_sha');
  const pgv = await pgvectorOf(db);
  // Kept for the exact search the indexes' recall is measured against.
  const stored = new Map<string, Float32Array>();
  let started = performance.now();
  for (let start = 0; start < shas.length; start += 2000) {
    await db('chunk_vectors').insert(
      shas.slice(start, start + 2000).map(({ text_sha }) => {
        const vector = mixture();
        stored.set(text_sha.toString('hex'), vector);
        return {
          collection_id: collection.id,
          model: LOCAL_MODEL,
          text_sha,
          dims,
          embedding: vectorBytes(vector),
          ...pgvColumn(db, pgv, vector),
        };
      }),
    );
  }
  const storeSeconds = (performance.now() - started) / 1000;
  // Built over the stored vectors at once (the indexer makes it first and adds each vector as it
  // is stored: the same index, built slower); maintenance_work_mem is the scratch URL's.
  started = performance.now();
  if (pgv) await ensureHnswIndex(db, pgv, dims);
  const buildSeconds = (performance.now() - started) / 1000;
  await db('collections').where({ id: collection.id }).update({ vectors_model: LOCAL_MODEL });
  await db.raw('analyze chunk_vectors');
  const chunkShas = new Map<number, string>();
  const chunkRows: { id: string; sha: string }[] = await db('chunks')
    .where({ collection_id: collection.id })
    .select('id', db.raw(`encode(text_sha, 'hex') as sha`));
  for (const row of chunkRows) chunkShas.set(Number(row.id), row.sha);

  // One pgvector row per `hnsw.ef_search` asked for (BENCH_EF_SEARCH, e.g. 40,100,200).
  const efs = (process.env.BENCH_EF_SEARCH || String(EF_SEARCH)).split(',').map(Number);
  const indexes = ['memory', ...(pgv ? efs.map((ef) => `pg ef${ef}`) : [])];
  const depsOf = new Map(
    indexes.map((kind, i) => [
      kind,
      {
        db,
        embedders,
        vectors: createNearestChunks(db, {
          index: kind === 'memory' ? 'memory' : 'auto',
          cacheBytes: 1024 * 1024 * 1024,
          pgvector: { efSearch: efs[i - 1] ?? EF_SEARCH },
        }),
        collections: new CollectionCache(),
      },
    ]),
  );
  const firstSearch = new Map<string, number>();
  for (const [kind, deps] of depsOf) {
    started = performance.now();
    await searchKnowledge(deps, 'bench-hybrid', 'warm up the index', 5, 'semantic');
    firstSearch.set(kind, performance.now() - started);
  }

  const queries = makeQueries(model, random, options.queries);
  const embedTimes: number[] = [];
  const queryVectors: Float32Array[] = [];
  for (const { q } of queries.slice(0, 100)) {
    started = performance.now();
    queryVectors.push((await local.embed([q]))[0]!);
    embedTimes.push(performance.now() - started);
  }
  embedTimes.sort((a, b) => a - b);

  // Recall@10 against the exact float search: the texts of the ten nearest vectors.
  const recallOf = new Map<string, number>();
  for (const [kind, deps] of depsOf) {
    let kept = 0;
    for (const query of queryVectors) {
      const exact = [...stored]
        .map(([sha, vector]) => ({ sha, score: dot(query, vector) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 10)
        .map((n) => n.sha);
      const found = await deps.vectors.nearest(
        {
          collectionId: String(collection.id),
          generation: String(collection.active_generation),
          model: LOCAL_MODEL,
        },
        query,
        10,
      );
      const shasFound = new Set((found ?? []).map((n) => chunkShas.get(n.id)));
      kept += exact.filter((sha) => shasFound.has(sha)).length;
    }
    recallOf.set(kind, kept / (queryVectors.length * 10));
  }

  const rows: string[] = [];
  let wordsP50 = 1;
  const runs = [
    { mode: 'words' as SearchMode, kind: '' as const },
    ...indexes.flatMap((kind) => (['semantic', 'hybrid'] as const).map((mode) => ({ mode, kind }))),
  ];
  for (const { mode, kind } of runs) {
    const deps = depsOf.get(kind || 'memory')!;
    const times: number[] = [];
    for (const { q } of queries) {
      started = performance.now();
      await searchKnowledge(deps, 'bench-hybrid', q, 5, mode);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    if (mode === 'words') wordsP50 = percentile(times, 50);
    const ratio = percentile(times, 50) / wordsP50;
    rows.push(
      `| ${mode.padEnd(8)} | ${(kind || '-').padEnd(8)} | ${percentile(times, 50).toFixed(1).padStart(7)} | ${percentile(times, 99).toFixed(1).padStart(7)} | ${ratio.toFixed(2).padStart(11)} | ${load()} |`,
    );
  }
  console.log(
    `\nSearch by mode, ${options.chunks} chunks (${shas.length} distinct texts), ${options.queries} generated queries, k = 5`,
  );
  console.log('| mode     | index    | p50 ms  | p99 ms  | p50 / words | load |');
  console.log('| -------- | -------- | ------- | ------- | ----------- | ---- |');
  for (const row of rows) console.log(row);
  console.log(
    `\nembedding one question (embedded model): p50 ${percentile(embedTimes, 50).toFixed(1)} ms, p99 ${percentile(embedTimes, 99).toFixed(1)} ms | load ${load()}`,
  );
  console.log('\n| index    | recall@10 vs exact | first search s | memory |');
  console.log('| -------- | ------------------ | -------------- | ------ |');
  for (const kind of indexes) {
    const memory =
      kind === 'memory'
        ? `${(depsOf.get(kind)!.vectors.bytes / 1024 / 1024).toFixed(1)} MiB in each searching process`
        : await pgvectorSizes(db, dims);
    console.log(
      `| ${kind.padEnd(8)} | ${recallOf.get(kind)!.toFixed(3).padStart(18)} | ${(firstSearch.get(kind)! / 1000).toFixed(2).padStart(14)} | ${memory} |`,
    );
  }
  console.log(
    `\nstoring ${shas.length} vectors: ${storeSeconds.toFixed(1)} s${pgv ? `; building pgvector ${pgv.version}'s HNSW index over them: ${buildSeconds.toFixed(1)} s` : ''} | load ${load()}`,
  );
}

/** What pgvector adds in Postgres: the `pgv` column's share of `chunk_vectors` and the HNSW index. */
async function pgvectorSizes(db: Knex, dims: number): Promise<string> {
  const { rows } = await db.raw<{ rows: { column: string; index: string }[] }>(
    `select pg_size_pretty(sum(pg_column_size(pgv))) as column,
            pg_size_pretty(pg_relation_size(?::regclass)) as index
     from chunk_vectors`,
    [hnswIndexName(dims)],
  );
  return `in Postgres: pgv column ${rows[0]!.column}, HNSW index ${rows[0]!.index}`;
}

await runBench(main);

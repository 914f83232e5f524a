/**
 * Search latency by mode on a collection of `BENCH_SEARCH_CHUNKS` chunks (default 100,000), in one
 * run: words, semantic and hybrid through `searchKnowledge`, as the retriver and the API call it,
 * each with p50/p99 and its ratio to words, plus the time of embedding the question alone and of
 * loading the vector index. The chunks are the knowledge bench's generated text
 * (`buildCollection`); their vectors are mixtures of the embedded model's vectors of generated
 * sentences (three at random weights plus noise, as in vectors.ts), since embedding 100,000
 * chunks takes hours; questions are embedded by the real model. Prints the machine's load.
 *
 *   node --import tsx bench/knowledge/hybrid.ts
 */
import { loadavg } from 'node:os';
import { createDb } from '../../src/shared/db.ts';
import { createEmbedders } from '../../src/shared/embeddings/embedders.ts';
import { LOCAL_ONLY } from '../../test/support/knowledge-fixtures.ts';
import { LOCAL_MODEL } from '../../src/shared/embeddings/local-provider.ts';
import { VectorIndexCache } from '../../src/shared/embeddings/vector-cache.ts';
import { vectorBytes } from '../../src/shared/embeddings/vectors.ts';
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
  const db = createDb(databaseUrl.toString(), { poolMax: 4 });
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
  for (let start = 0; start < shas.length; start += 2000) {
    await db('chunk_vectors').insert(
      shas.slice(start, start + 2000).map(({ text_sha }) => ({
        collection_id: collection.id,
        model: LOCAL_MODEL,
        text_sha,
        dims,
        embedding: vectorBytes(mixture()),
      })),
    );
  }
  await db('collections').where({ id: collection.id }).update({ vectors_model: LOCAL_MODEL });

  const deps = {
    db,
    embedders,
    vectors: new VectorIndexCache(db, 1024 * 1024 * 1024),
    collections: new CollectionCache(),
  };
  let started = performance.now();
  await searchKnowledge(deps, 'bench-hybrid', 'warm up the index', 5, 'semantic');
  const loadMs = performance.now() - started;

  const queries = makeQueries(model, random, options.queries);
  const embedTimes: number[] = [];
  for (const { q } of queries.slice(0, 100)) {
    started = performance.now();
    await local.embed([q]);
    embedTimes.push(performance.now() - started);
  }
  embedTimes.sort((a, b) => a - b);
  const rows: string[] = [];
  const p50s = new Map<SearchMode, number>();
  for (const mode of ['words', 'semantic', 'hybrid'] as const) {
    const times: number[] = [];
    for (const { q } of queries) {
      started = performance.now();
      await searchKnowledge(deps, 'bench-hybrid', q, 5, mode);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    p50s.set(mode, percentile(times, 50));
    const ratio = percentile(times, 50) / (p50s.get('words') ?? 1);
    rows.push(
      `| ${mode.padEnd(8)} | ${percentile(times, 50).toFixed(1).padStart(7)} | ${percentile(times, 99).toFixed(1).padStart(7)} | ${ratio.toFixed(2).padStart(13)} | ${load()} |`,
    );
  }
  console.log(
    `\nSearch by mode, ${options.chunks} chunks (${shas.length} distinct texts), ${options.queries} generated queries, k = 5`,
  );
  console.log('| mode     | p50 ms  | p99 ms  | p50 / words'.padEnd(48) + ' | load |');
  console.log('| -------- | ------- | ------- | ------------- | ---- |');
  for (const row of rows) console.log(row);
  console.log(
    `\nembedding one question (embedded model): p50 ${percentile(embedTimes, 50).toFixed(1)} ms, p99 ${percentile(embedTimes, 99).toFixed(1)} ms; loading the vector index: ${(loadMs / 1000).toFixed(1)} s (${(deps.vectors.bytes / 1024 / 1024).toFixed(1)} MiB) | load ${load()}`,
  );
}

await runBench(main);

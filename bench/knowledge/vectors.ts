/**
 * What searching by meaning costs: the embedded model's speed on 2 cores (chunks and questions a
 * second), and the in-memory vector index at `BENCH_VECTORS` chunks (default 100,000): search
 * p50/p99, recall@10 against exact float search, and memory per 100,000 chunks. The vectors of
 * the index bench are mixtures of the model's own vectors of real sentences (three at random
 * weights, plus noise), so they spread as a collection's do rather than as random points
 * (embedding 100,000 chunks would take hours); the queries are made the same way. Prints the
 * machine's load beside every figure.
 *
 *   node --import tsx bench/knowledge/vectors.ts
 */
import { loadavg } from 'node:os';
import { LocalEmbeddingProvider } from '../../src/shared/embeddings/local-provider.ts';
import { EXACT_LIMIT, VectorIndex } from '../../src/shared/embeddings/vector-index.ts';
import { dot } from '../../src/shared/embeddings/vectors.ts';
import { mixtures } from './mixtures.ts';
import { SHOP_PAGES } from '../../test/support/knowledge-fixtures.ts';

const size = Number(process.env.BENCH_VECTORS ?? 100_000);
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const model = new LocalEmbeddingProvider();
const chunk = SHOP_PAGES.join(' ').slice(0, 1200);
const sentences = SHOP_PAGES.flatMap((page) => page.split(/[:;,.] /)).filter((s) => s.length > 8);

// The model: chunks of 1,200 characters, then short questions.
await model.embed([chunk]);
let started = performance.now();
await model.embed(Array.from({ length: 32 }, (_, i) => `${i} ${chunk}`));
const chunkRate = 32 / ((performance.now() - started) / 1000);
started = performance.now();
for (let i = 0; i < 50; i += 1)
  await model.embed([`question number ${i}: ${sentences[i % sentences.length]}`]);
const questionMs = (performance.now() - started) / 50;
console.log(
  `embedded model, 1,200-character chunks: ${chunkRate.toFixed(1)} chunks/s (one thread) | load ${load()}`,
);
console.log(`embedded model, one question: ${questionMs.toFixed(1)} ms | load ${load()}`);

const bases = await model.embed([
  ...sentences,
  ...sentences.map((s) => `is it true that ${s.toLowerCase()}?`),
]);
await model.close();

const next = random(7);
const dims = bases[0]!.length;
const mixture = mixtures(bases, next);
const queries = Array.from({ length: 100 }, mixture);
const exact: Float32Array[] = [];
const index = new VectorIndex(size, dims);
const heapBefore = process.memoryUsage().arrayBuffers;
for (let i = 0; i < size; i += 1) {
  const vector = mixture();
  exact.push(vector);
  index.add(i, vector);
}
const indexBytes = index.bytes;

const times: number[] = [];
let overlap = 0;
for (const query of queries) {
  const t = performance.now();
  const found = index.search(query, 10);
  times.push(performance.now() - t);
  const truth = exact
    .map((vector, id) => ({ id, score: dot(vector, query) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, 10);
  const ids = new Set(found.map((n) => n.id));
  overlap += truth.filter((t) => ids.has(t.id)).length / 10;
}
times.sort((a, b) => a - b);
console.log(
  `vector index, ${size} chunks of ${dims} dimensions (${size > EXACT_LIMIT ? 'sign-bit prefilter' : 'exact scan'}):`,
);
console.log(
  `  search p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms over ${times.length} queries | load ${load()}`,
);
console.log(`  recall@10 against exact float search: ${(overlap / queries.length).toFixed(3)}`);
console.log(
  `  memory: ${(indexBytes / 1024 / 1024).toFixed(1)} MiB (${(((indexBytes / size) * 100_000) / 1024 / 1024).toFixed(1)} MiB per 100,000 chunks; float32 would be ${((size * dims * 4) / 1024 / 1024).toFixed(1)} MiB); array buffers grew ${((process.memoryUsage().arrayBuffers - heapBefore) / 1024 / 1024).toFixed(0)} MiB with the exact copies`,
);

/**
 * The retrieval quality bench (`npm run bench:knowledge:quality`): chapters of The Debian
 * Administrator's Handbook, printed to PDF from the `debian-handbook` package (handbook.ts), are
 * indexed by the indexer's own job code with the embedded model, then each question of
 * questions.ts is searched by words, by meaning and both; recall@5 and nDCG@10 are printed side by
 * side, per kind of question, with the goals, the index and embedding time and the machine's load.
 * See README.md.
 *
 * Env: BENCH_QUALITY_HITS (a file: every search's hits are written there as JSON lines),
 * BENCH_VECTOR_INDEX (`memory`: the in-memory vector index even where the database has pgvector),
 * BENCH_REDIS_URL, BENCH_DATABASE_URL (as every bench; the scratch database is migrated by
 * scripts/upgrade-db.sh, which needs Redis reachable).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runIndexJob } from '../../src/indexer/run-job.ts';
import { createDb, type Knex } from '../../src/shared/db.ts';
import { createEmbedders } from '../../src/shared/embeddings/embedders.ts';
import { LOCAL_ONLY } from '../../test/support/knowledge-fixtures.ts';
import { LocalEmbeddingProvider } from '../../src/shared/embeddings/local-provider.ts';
import type { Embedders, EmbeddingProvider } from '../../src/shared/embeddings/provider.ts';
import { createNearestChunks } from '../../src/shared/embeddings/nearest.ts';
import { searchKnowledge, SEARCH_MODES } from '../../src/shared/knowledge/hybrid.ts';
import { createJob, type JobRow } from '../../src/shared/knowledge/jobs.ts';
import { collectionDir } from '../../src/shared/knowledge/names.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { cleanups, commonOptions, openScratch, runBench } from '../lib/setup.ts';
import { median } from '../lib/stats.ts';
import { handbookPdfs } from './handbook.ts';
import { QUESTIONS, QUESTION_KINDS } from './questions.ts';
import { answers, goalLines, hitsJson, missLines, qualityTable, type Judged } from './relevance.ts';

const COLLECTION = 'debian-handbook';
/** A file to write every search's hits to, as JSON lines (for studying the misses). */
const hitsFile = process.env.BENCH_QUALITY_HITS || undefined;
/** Hits read per search: nDCG is taken at 10, recall at 5. */
const K = 10;

/** The checked-out commit, `+` when the tree has changes; `unknown` outside a git checkout. */
function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { encoding: 'utf8' }).trim();
    return dirty ? `${head}+` : head;
  } catch {
    return 'unknown';
  }
}

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/**
 * The embedded model, timing its work: `seconds` is the wall time during which at least one
 * embedding call was under way (a job stores two files at once, so calls overlap).
 */
class TimedModel implements EmbeddingProvider {
  readonly #model = new LocalEmbeddingProvider({ batch: 16 });
  readonly model = this.#model.model;
  readonly batch = this.#model.batch;
  texts = 0;
  seconds = 0;
  #active = 0;
  #since = 0;

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (this.#active++ === 0) this.#since = performance.now();
    try {
      const vectors = await this.#model.embed(texts, signal);
      this.texts += texts.length;
      return vectors;
    } finally {
      if (--this.#active === 0) this.seconds += (performance.now() - this.#since) / 1000;
    }
  }

  close(): Promise<void> {
    return this.#model.close();
  }
}

/** The embedders of a process configured for the embedded model only, which is `model`. */
function embeddersOf(model: EmbeddingProvider): Embedders {
  return createEmbedders(LOCAL_ONLY, { local: model });
}

/** Indexes the PDFs as one job of the collection, as the indexer would; returns the finished row. */
async function indexHandbook(
  db: Knex,
  storageDir: string,
  files: string[],
  embedders: Embedders,
): Promise<JobRow> {
  const jobId = 'job_bench_quality';
  await createJob(db, {
    jobId,
    collection: COLLECTION,
    files,
    options: { embedding_model: 'local' },
  });
  const logger = createLogger({ component: 'bench-quality', level: 'warn' });
  await runIndexJob({ db, storageDir, limits: {}, logger, embedders }, jobId);
  const row = await db<JobRow>('index_jobs').where({ job_id: jobId }).first();
  if (row?.status !== 'succeeded') {
    throw new Error(`the index job ended ${row?.status}: ${JSON.stringify(row?.outcome)}`);
  }
  return row;
}

/** The number of chunks of the collection's active generation answering each question. */
async function answering(db: Knex): Promise<Map<(typeof QUESTIONS)[number], number>> {
  const texts: string[] = (
    await db('chunks')
      .join('collections', function () {
        this.on('collections.id', 'chunks.collection_id').andOn(
          'collections.active_generation',
          'chunks.generation',
        );
      })
      .where('collections.name', COLLECTION)
      .select<{ text: string }[]>('chunks.text')
  ).map((row) => row.text);
  const counts = new Map(QUESTIONS.map((q) => [q, texts.filter((t) => answers(q, t)).length]));
  const none = QUESTIONS.filter((q) => counts.get(q) === 0);
  if (none.length > 0) {
    throw new Error(
      `no chunk answers ${none.length} question(s) (did the corpus change?): ${none.map((q) => `"${q.question}" ${q.answer}`).join('; ')}`,
    );
  }
  const broad = QUESTIONS.filter((q) => counts.get(q)! > 3);
  for (const q of broad) {
    console.error(`bench: "${q.question}": ${counts.get(q)} chunks answer it (not distinctive)`);
  }
  return counts;
}

async function main(): Promise<void> {
  const options = commonOptions();
  console.log(`commit ${commit()}, load average at start: ${load()}`);
  const dir = await mkdtemp(join(tmpdir(), 'bwbench-quality-'));
  cleanups.push({ what: `remove ${dir}`, run: () => rm(dir, { recursive: true, force: true }) });

  const storageDir = join(dir, 'storage');
  const pdfDir = collectionDir(storageDir, COLLECTION);
  console.error(`bench: printing the handbook's chapters to PDF in ${pdfDir}`);
  const book = await handbookPdfs(pdfDir);
  console.log(
    `corpus: ${book.files.length} chapters of The Debian Administrator's Handbook (${book.made}), printed in ${book.seconds.toFixed(1)} s`,
  );

  const { databaseUrl } = await openScratch(options, 'bench-quality', `, files in ${dir}`);
  const db = createDb(databaseUrl.toString(), { poolMax: 4 });
  cleanups.push({ what: 'scratch database pool', run: () => db.destroy() });

  console.error('bench: indexing with the embedded model (1 to 3 minutes)');
  const model = new TimedModel();
  const embedders = embeddersOf(model);
  cleanups.push({ what: 'embedded model', run: () => embedders.close() });
  const started = performance.now();
  const job = await indexHandbook(db, storageDir, book.files, embedders);
  const indexSeconds = (performance.now() - started) / 1000;
  const pages = Object.values(job.outcome).reduce(
    (sum, o) => sum + (o.status === 'indexed' ? (o.pages ?? 0) : 0),
    0,
  );
  console.log(
    `indexed: ${pages} pages, ${job.chunks_done} chunks in ${indexSeconds.toFixed(1)} s, of which embedding ${model.seconds.toFixed(1)} s (${model.texts} chunks, ${(model.texts / model.seconds).toFixed(1)} chunks/s) | load ${load()}`,
  );
  const counts = await answering(db);

  // BENCH_VECTOR_INDEX=memory keeps the in-memory index where the database has pgvector.
  const index = process.env.BENCH_VECTOR_INDEX === 'memory' ? 'memory' : 'auto';
  const vectors = createNearestChunks(db, { index, cacheBytes: 256 * 1024 * 1024 });
  const deps = { db, embedders, vectors };
  const judged: Judged[] = [];
  const times: Record<string, number[]> = {};
  // One unmeasured search per mode: the first one by meaning loads the vector index.
  for (const mode of SEARCH_MODES) await searchKnowledge(deps, COLLECTION, 'apt', K, mode);
  for (const question of QUESTIONS) {
    for (const mode of SEARCH_MODES) {
      const t = performance.now();
      const result = await searchKnowledge(deps, COLLECTION, question.question, K, mode);
      (times[mode] ??= []).push(performance.now() - t);
      judged.push({
        question,
        mode,
        relevant: result.hits.map((hit) => answers(question, hit.text)),
        answering: counts.get(question)!,
        hits: result.hits,
      });
    }
  }
  const perKind = QUESTION_KINDS.map(
    (kind) => `${QUESTIONS.filter((q) => q.kind === kind).length} ${kind}`,
  ).join(', ');

  console.log(
    `\n${QUESTIONS.length} questions (${perKind}), k = ${K}, vector index: ${vectors.kind} | load ${load()}\n`,
  );
  console.log(qualityTable(judged));
  console.log('');
  for (const line of goalLines(judged)) console.log(line);
  console.log(
    `search p50: ${SEARCH_MODES.map((m) => `${m} ${median(times[m]!).toFixed(1)} ms`).join(', ')}`,
  );
  const misses = missLines(judged);
  console.log(
    `\nquestions hybrid misses at 5 (rank of the first answering hit: w=words s=semantic h=hybrid, - not in the first ${K}):`,
  );
  for (const line of misses) console.log(`  ${line}`);
  console.log(`\nload average at the end: ${load()}`);
  if (hitsFile) {
    await writeFile(hitsFile, hitsJson(judged));
    console.error(`bench: every search's hits written to ${hitsFile}`);
  }
}

await runBench(main);
// The cleanups have run and the figures are printed: end here rather than wait on any handle a
// library leaves.
process.exit();

/**
 * The knowledge bench (`npm run bench:knowledge`): indexing speed of the real indexer (its own
 * process, fed through the `indexer` topic) against pdf-parse and SheetJS alone on the same files,
 * and search latency on a collection of 100,000 chunks. See README.md.
 *
 * Env: BENCH_PAGES (default 1000), BENCH_PDF_FILES (5), BENCH_ROWS (100000), BENCH_XLSX_FILES
 * (3), BENCH_CSV_FILES (2), BENCH_SHEETS (sheets per xlsx, 3), BENCH_SEARCH_CHUNKS (100000),
 * BENCH_QUERIES (1200), BENCH_HTTP_QUERIES (600; 0 skips the HTTP route), BENCH_WARMUP_QUERIES
 * (300), BENCH_SEED (1), BENCH_ROUNDS (raw and ours alternate this many times; the median round
 * by ratio is shown; 1), BENCH_REDIS_URL, BENCH_DATABASE_URL, BENCH_PROF (a folder: the indexer,
 * the raw baseline and the api run with --cpu-prof and write there).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { copyFile, cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Producer } from '../../src/shared/bus/producer.ts';
import { createDb, type Knex } from '../../src/shared/db.ts';
import type { JobRow } from '../../src/shared/knowledge/jobs.ts';
import { SchemaRegistry } from '../../src/shared/schemas.ts';
import {
  type Child,
  childEnv,
  cpuSeconds,
  freePort,
  startNode,
  stopChild,
  waitReady,
} from '../edge/processes.ts';
import {
  cleanups,
  commonOptions,
  componentEntry,
  intEnv,
  openScratch,
  ROOT,
  runBench,
} from '../lib/setup.ts';
import { postgresGroup, waitConsuming } from '../pipeline/probes.ts';
import { writePdfs, writeSheets, type Corpus } from './corpus.ts';
import { rssOf, sampleMemory, type MemorySample } from './memory.ts';
import {
  buildCollection,
  directSearch,
  httpSearch,
  makeQueries,
  timeQueries,
  type Timed,
} from './queries.ts';
import { printReport, ratioOf, type IndexRun, type RawRun, type Round } from './report.ts';
import { loadModel, prng } from './text.ts';

const options = {
  pages: intEnv('BENCH_PAGES', 1000, 1),
  pdfFiles: intEnv('BENCH_PDF_FILES', 5, 1),
  rows: intEnv('BENCH_ROWS', 100_000, 1),
  xlsxFiles: intEnv('BENCH_XLSX_FILES', 3, 0),
  csvFiles: intEnv('BENCH_CSV_FILES', 2, 0),
  sheets: intEnv('BENCH_SHEETS', 3, 1),
  searchChunks: intEnv('BENCH_SEARCH_CHUNKS', 100_000, 1),
  queries: intEnv('BENCH_QUERIES', 1200, 1),
  httpQueries: intEnv('BENCH_HTTP_QUERIES', 600, 0),
  warmupQueries: intEnv('BENCH_WARMUP_QUERIES', 300, 0),
  seed: intEnv('BENCH_SEED', 1, 0),
  rounds: intEnv('BENCH_ROUNDS', 1, 1),
  ...commonOptions(),
};
if (options.xlsxFiles + options.csvFiles === 0) {
  throw new Error('BENCH_XLSX_FILES + BENCH_CSV_FILES must be at least 1');
}

const PARTITIONS = 8;
const FINISHED = ['succeeded', 'partial', 'failed', 'superseded'];

/** The round whose ours/raw ratio is the median (the lower middle one for an even count). */
function medianRound(rounds: Round[]): Round {
  const sorted = [...rounds].sort((a, b) => ratioOf(a) - ratioOf(b));
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** Runs raw.ts in its own process and returns what it printed. */
async function runRaw(kind: 'pdf' | 'sheets', warmup: string, files: string[]): Promise<RawRun> {
  const nodeArgs = options.nodeArgs;
  const child = spawn(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', 'bench/knowledge/raw.ts', kind, warmup, ...files],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (part: string) => (out += part));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`raw.ts ${kind} exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1) ?? '') as RawRun;
}

interface Indexer {
  child: Child;
  producer: Producer;
  db: Knex;
  dbName: string;
}

/**
 * Publishes an `indexer` topic message for `files` of `collection` and waits for its job to
 * finish, sampling the indexer's memory and timing from the publish to the finished row.
 */
async function indexThrough(
  indexer: Indexer,
  collection: string,
  files: string[],
  units: number,
): Promise<IndexRun> {
  const pid = indexer.child.process.pid!;
  const postgres = postgresGroup('postgres', indexer.dbName);
  const pgBefore = postgres.read() ?? 0;
  const cpuBefore = cpuSeconds(pid);
  const memory = sampleMemory(pid);
  let sample: MemorySample | undefined;
  const start = performance.now();
  try {
    await indexer.producer.publish('indexer', { collection_name: collection, files });
    for (;;) {
      if (indexer.child.process.exitCode !== null) throw new Error('the indexer exited');
      const row = await indexer
        .db<JobRow>('index_jobs')
        .where({ collection_name: collection })
        .whereIn('status', FINISHED)
        .first();
      if (row) {
        const seconds = (performance.now() - start) / 1000;
        sample = memory.stop();
        const cpu = cpuSeconds(pid);
        const pgAfter = postgres.read();
        const outcomes = Object.values(row.outcome);
        const failed = Object.entries(row.outcome).filter(([, o]) => o.status === 'failed');
        if (row.status !== 'succeeded') {
          throw new Error(`job ${row.job_id} ${row.status}: ${JSON.stringify(failed)}`);
        }
        const counted = outcomes.reduce(
          (sum, o) => sum + (o.status === 'indexed' ? (o.pages ?? o.rows ?? 0) : 0),
          0,
        );
        if (counted !== units) {
          throw new Error(
            `${collection}: the job counted ${counted} units, the corpus has ${units}`,
          );
        }
        return {
          units,
          seconds,
          jobSeconds:
            row.started_at && row.finished_at
              ? (row.finished_at.getTime() - row.started_at.getTime()) / 1000
              : undefined,
          cpuSeconds: cpu !== undefined && cpuBefore !== undefined ? cpu - cpuBefore : undefined,
          postgresCpuSeconds: pgAfter !== undefined ? pgAfter - pgBefore : undefined,
          chunks: row.chunks_done,
          memory: sample,
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    if (!sample) memory.stop();
  }
}

async function main(): Promise<void> {
  const load = loadavg();

  const dir = await mkdtemp(join(tmpdir(), 'bwbench-knowledge-'));
  cleanups.push({ what: `remove ${dir}`, run: () => rm(dir, { recursive: true, force: true }) });
  const { prefix, dbName, databaseUrl, redis } = await openScratch(
    options,
    'bench-knowledge',
    `, files in ${dir}`,
  );
  const db = createDb(databaseUrl.toString(), { poolMax: 4 });
  cleanups.push({ what: 'scratch database pool', run: () => db.destroy() });

  // The corpus: generated, not timed.
  console.error('bench: generating the corpus');
  const model = loadModel();
  const random = prng(options.seed);
  const storage = join(dir, 'storage');
  const folder = async (name: string): Promise<string> => {
    const path = join(storage, name);
    await mkdir(path, { recursive: true });
    return path;
  };
  const warmDir = await folder('bench-warmup');
  const warmPdf = await writePdfs(warmDir, model, random, 10, 1);
  const warmSheets = await writeSheets(warmDir, model, random, {
    rows: 500,
    xlsxFiles: 1,
    csvFiles: 0,
    sheets: 2,
  });
  const pdfDir = await folder('bench-pdf');
  const pdfs = await writePdfs(pdfDir, model, random, options.pages, options.pdfFiles);
  const sheetDir = await folder('bench-sheets');
  const sheets = await writeSheets(sheetDir, model, random, {
    rows: options.rows,
    xlsxFiles: options.xlsxFiles,
    csvFiles: options.csvFiles,
    sheets: options.sheets,
  });
  // The indexer reads two PDFs at once (INDEXER_READ_LANES), each in a pdf.js thread that a
  // long-lived indexer keeps: the warm-up job gives it two, so both threads are warm. A copy of
  // the one PDF, not a second generated one, so the seeded corpora above stay the same.
  await copyFile(join(warmDir, warmPdf.files[0]!), join(warmDir, 'manual-copy.pdf'));
  warmPdf.files.push('manual-copy.pdf');
  warmPdf.units *= 2;

  // The indexer, as `./scripts/run.sh indexer` starts it: compiled, with production's V8 flags.
  const common = {
    STREAM_PREFIX: prefix,
    DATABASE_URL: databaseUrl.toString(),
    REDIS_URL: options.redisUrl,
    STORAGE_DIR: storage,
    TOPIC_PARTITIONS: String(PARTITIONS),
    LOG_LEVEL: 'warn',
    // Indexing for words, against the raw libraries; embedding is measured by bench/knowledge/vectors.ts.
    EMBEDDINGS_PROVIDER: 'none',
  };
  const children: Child[] = [];
  cleanups.push({
    what: 'stop the children',
    run: () => Promise.all(children.map((child) => stopChild(child))),
  });
  const child = startNode(
    'indexer-1',
    ROOT,
    componentEntry('indexer'),
    childEnv({ ...common, CONSUMER_NAME: 'indexer-1' }),
    options.componentNodeArgs('indexer'),
  );
  children.push(child);
  await waitConsuming(redis, prefix, 'indexer', PARTITIONS, [child]);
  const startRss = rssOf(child.process.pid!);
  const indexer: Indexer = {
    child,
    db,
    dbName,
    producer: new Producer({
      redis,
      schemas: new SchemaRegistry(),
      prefix,
      maxLen: 10_000,
      partitions: PARTITIONS,
    }),
  };

  console.error('bench: warming up the indexer (2 x 10 pages, 500 rows)');
  await indexThrough(
    indexer,
    'bench-warmup',
    [...warmPdf.files, ...warmSheets.files],
    warmPdf.units + warmSheets.units,
  );

  const paths = (folderPath: string, corpus: Corpus): string[] =>
    corpus.files.map((file) => join(folderPath, file));
  // Raw and ours alternate, round after round; each round indexes into collections of its own
  // (a copy of the files), so every round is a first index, like the first.
  const pdfRounds: Round[] = [];
  const sheetRounds: Round[] = [];
  for (let round = 1; round <= options.rounds; round += 1) {
    const suffix = round === 1 ? '' : `-${round}`;
    if (round > 1) {
      await cp(pdfDir, `${pdfDir}${suffix}`, { recursive: true });
      await cp(sheetDir, `${sheetDir}${suffix}`, { recursive: true });
    }
    const what = options.rounds > 1 ? ` (round ${round} of ${options.rounds})` : '';
    console.error(`bench: raw pdf-parse on ${pdfs.units} pages${what}`);
    const rawPdf = await runRaw('pdf', join(warmDir, warmPdf.files[0]!), paths(pdfDir, pdfs));
    console.error(`bench: indexing ${pdfs.units} pages${what}`);
    const oursPdf = await indexThrough(indexer, `bench-pdf${suffix}`, pdfs.files, pdfs.units);
    pdfRounds.push({ raw: rawPdf, ours: oursPdf });
    console.error(`bench: raw SheetJS on ${sheets.units} rows${what}`);
    const rawSheets = await runRaw(
      'sheets',
      join(warmDir, warmSheets.files[0]!),
      paths(sheetDir, sheets),
    );
    console.error(`bench: indexing ${sheets.units} rows${what}`);
    const oursSheets = await indexThrough(
      indexer,
      `bench-sheets${suffix}`,
      sheets.files,
      sheets.units,
    );
    sheetRounds.push({ raw: rawSheets, ours: oursSheets });
  }
  const pdfRound = medianRound(pdfRounds);
  const sheetRound = medianRound(sheetRounds);

  // Search latency on a big collection.
  console.error(`bench: storing a collection of ${options.searchChunks} chunks`);
  const built = await buildCollection(db, 'bench-search', model, random, options.searchChunks);
  // What autovacuum does soon after a bulk load: statistics for the planner, the GIN pending list
  // merged into the index.
  await db.raw('vacuum analyze chunks');
  const queryRandom = prng(options.seed + 1);
  const warmQueries = makeQueries(model, queryRandom, options.warmupQueries);
  const queries = makeQueries(model, queryRandom, options.queries);
  console.error(`bench: ${options.queries} searches through searchCollection`);
  const direct = directSearch(db, 'bench-search');
  await timeQueries(warmQueries, direct);
  // CPU per search barely moves with what else runs on the machine; latency does.
  const backends = postgresGroup('postgres', dbName);
  const pgBefore = backends.read();
  const benchBefore = process.cpuUsage();
  const directTimes = await timeQueries(queries, direct);
  const pgAfter = backends.read();
  const benchCpu = process.cpuUsage(benchBefore);
  const cpuPerSearch = {
    postgresMs:
      pgBefore !== undefined && pgAfter !== undefined
        ? ((pgAfter - pgBefore) * 1000) / queries.length
        : undefined,
    callerMs: (benchCpu.user + benchCpu.system) / 1000 / queries.length,
  };

  let httpTimes: Timed[] | undefined;
  if (options.httpQueries > 0) {
    const adminKey = randomBytes(32).toString('base64url');
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const api = startNode(
      'api',
      ROOT,
      componentEntry('api'),
      childEnv({
        ...common,
        ADMIN_API_KEY: adminKey,
        CREDENTIALS_KEY: randomBytes(32).toString('base64'),
        API_HOST: '127.0.0.1',
        API_PORT: String(port),
        PUBLIC_BASE_URL: origin,
      }),
      options.componentNodeArgs('api'),
    );
    children.push(api);
    await waitReady(api, `${origin}/readyz`);
    console.error(
      `bench: ${options.httpQueries} searches through GET /v2/collections/<name>/search`,
    );
    const http = httpSearch(origin, adminKey, 'bench-search');
    await timeQueries(warmQueries, http);
    httpTimes = await timeQueries(queries.slice(0, options.httpQueries), http);
  }

  printReport({
    load,
    loadAfter: loadavg(),
    pdfs,
    sheets,
    xlsxFiles: options.xlsxFiles,
    csvFiles: options.csvFiles,
    sheetsPerFile: options.sheets,
    rawPdf: pdfRound.raw,
    oursPdf: pdfRound.ours,
    rawSheets: sheetRound.raw,
    oursSheets: sheetRound.ours,
    indexerStartRss: startRss,
    roundRatios: { pdfs: pdfRounds.map(ratioOf), sheets: sheetRounds.map(ratioOf) },
    search: { built, direct: directTimes, http: httpTimes, cpuPerSearch },
  });
}

await runBench(main);

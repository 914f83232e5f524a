/**
 * One collection's documents cannot hold the indexer: a small PDF that expands to tens of MB of
 * run-on text is read and chunked off the main thread under its limits and fails alone; other
 * jobs run meanwhile; a job yields to waiting ones between files; the indexer stops within its
 * shutdown limit whatever it reads; a 2,000-file collection indexes.
 */
import { expect } from 'chai';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExtractLimits } from '../src/indexer/extract/index.ts';
import { extractPdf } from '../src/indexer/extract/pdf.ts';
import { runIndexJob, type SliceOptions } from '../src/indexer/run-job.ts';
import type { Knex } from '../src/shared/db.ts';
import { createJob } from '../src/shared/knowledge/jobs.ts';
import { createLogger } from '../src/shared/logger.ts';
import type { TestApi } from './support/api.ts';
import { stopComponent, type ComponentProcess } from './support/components.ts';
import { pdf, sharedStreamPdf } from './support/knowledge-fixtures.ts';
import { index, indexerProcessSuite, upload, waitForJob } from './support/knowledge.ts';
import { createTestSchema, waitFor, type TestSchema } from './support/services.ts';

/**
 * 200 pages sharing one content stream of 300,000 characters: 60 M characters from a few KB. pdf.js
 * reads about seven such pages a second on a quiet 2-core machine, so no machine reads it all within the
 * limits below (8 s, 1.5 s) or before a small job beside it ends: the tests do not hang on speed.
 */
const hostile = (): Buffer => sharedStreamPdf(200, 300_000);

describe('knowledge: one collection cannot hold the indexer', function () {
  this.timeout(240_000);

  describe('jobs run in-process', () => {
    let schema: TestSchema;
    let db: Knex;
    let storageDir: string;
    let jobs = 0;
    const logger = createLogger({ component: 'indexer', level: 'silent' });

    before(async () => {
      schema = await createTestSchema();
      db = schema.db;
      storageDir = await mkdtemp(join(tmpdir(), 'botwire-isolation-'));
    });

    after(async () => {
      await schema?.drop();
      await rm(storageDir, { recursive: true, force: true });
    });

    const put = async (collection: string, files: Record<string, Buffer>): Promise<void> => {
      await mkdir(join(storageDir, collection), { recursive: true });
      for (const [name, bytes] of Object.entries(files)) {
        await writeFile(join(storageDir, collection, name), bytes);
      }
    };
    const row = (jobId: string) => db('index_jobs').where({ job_id: jobId }).first();
    const start = async (
      collection: string,
      files: string[],
      options: {
        limits?: ExtractLimits;
        signal?: AbortSignal;
        slice?: SliceOptions;
        readLanes?: number;
      } = {},
    ) => {
      jobs += 1;
      const jobId = `job_${jobs}`;
      await createJob(db, { jobId, collection, files, options: {} });
      const deps = {
        db,
        storageDir,
        limits: options.limits ?? {},
        logger,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.readLanes ? { readLanes: options.readLanes } : {}),
      };
      return { jobId, done: runIndexJob(deps, jobId, () => false, options.slice) };
    };

    it('when a small PDF expands to millions of characters of run-on text past its time limit, then it fails alone as too-large and the other files are indexed', async () => {
      await put('hostile', {
        'bomb.pdf': hostile(),
        'fine.pdf': await pdf(['Bicycles have two wheels.']),
      });
      // A warm pdf.js thread for fine.pdf, so a thread's cold start on the loaded machine does
      // not count in its short limit; and one file read at a time, so bomb.pdf's thread (its cold
      // start, then the run-on text) does not take the CPU fine.pdf's 8 s are measured on. That
      // the bomb does not hold other work up is the next test's.
      await extractPdf(await pdf(['warm']));
      const { jobId, done } = await start('hostile', ['fine.pdf', 'bomb.pdf'], {
        limits: { pdf: { timeoutMs: 8000 } },
        readLanes: 1,
      });
      const finish = await done;
      const { outcome } = await row(jobId);
      expect(finish, JSON.stringify(outcome)).to.include({ status: 'partial' });
      expect(outcome['fine.pdf']).to.include({ status: 'indexed', chunks: 1 });
      expect(outcome['bomb.pdf'].status).to.equal('failed');
      expect(outcome['bomb.pdf'].error).to.include({
        code: 'BW_ERR_DOCUMENT_UNREADABLE',
        reason: 'too-large',
      });
      expect(outcome['bomb.pdf'].error.message).to.include('within 8000 ms');
    });

    it('when a hostile PDF is being read, then a job of another collection runs and finishes meanwhile, and an abort stops the first with nothing visible', async () => {
      await put('slow', { 'bomb.pdf': hostile() });
      await put('quick', { 'a.pdf': await pdf(['Gears and chains.']) });
      const closing = new AbortController();
      const slow = await start('slow', ['bomb.pdf'], { signal: closing.signal });
      await waitFor(async () => (await row(slow.jobId))?.status === 'running', {
        what: 'the slow job to start',
      });
      const quick = await start('quick', ['a.pdf']);
      expect(await quick.done).to.include({ status: 'succeeded' });
      // The main thread was free: the slow job's file is still being read.
      const meanwhile = await row(slow.jobId);
      expect(meanwhile.status).to.equal('running');
      expect(meanwhile.files_done).to.equal(0);
      closing.abort();
      expect(await slow.done).to.equal('stopped');
      const collection = await db('collections').where({ name: 'slow' }).first();
      expect(collection.active_generation).to.equal(null);
      const chunks = await db('chunks').where({ collection_id: collection.id }).count({ n: '*' });
      expect(Number(chunks[0]?.n)).to.equal(0);
      expect((await row(slow.jobId)).status).to.equal('running'); // left for the next attempt
    });

    it('when a job is asked to yield between files, then it stops after one, keeps its attempt count, and its resumption finishes the rest', async () => {
      const files = Object.fromEntries(
        ['a', 'b', 'c'].map((name) => [`${name}.csv`, Buffer.from(`Name,City\n${name},Köln\n`)]),
      );
      await put('sliced', files);
      const first = await start('sliced', Object.keys(files), {
        slice: { shouldYield: () => Promise.resolve(true) },
      });
      expect(await first.done).to.equal('yielded');
      expect(await row(first.jobId)).to.include({ status: 'running', files_done: 1, attempts: 1 });
      const again = await runIndexJob(
        { db, storageDir, limits: {}, logger },
        first.jobId,
        () => false,
        {
          resumed: true,
        },
      );
      expect(again).to.include({ status: 'succeeded' });
      expect(await row(first.jobId)).to.include({ files_done: 3, attempts: 1 });
    });
  });

  describe('the indexer as a process', () => {
    const suite = indexerProcessSuite('botwire-isolation-', {
      INDEXER_LOCK_MS: '2000',
      SHUTDOWN_TIMEOUT_MS: '8000',
    });
    let api: TestApi;
    let storageDir: string;
    let indexer: ComponentProcess;

    before(() => {
      ({ api, storageDir } = suite);
    });

    it('when the indexer gets SIGTERM while it reads a hostile PDF, then it exits cleanly within its shutdown limit, and the next indexer fails the file alone within its PDF limit', async () => {
      expect((await upload(api, 'bomb', { 'bomb.pdf': hostile() })).status).to.equal(201);
      indexer = await suite.start('ix-bomb-1');
      const jobId = await index(api, 'bomb');
      await waitFor(
        async () => (await api.call('GET', `/v2/index-jobs/${jobId}`)).json.status === 'running',
        { timeoutMs: 60_000, what: 'the job to start' },
      );
      await stopComponent(indexer, 'SIGTERM');
      // 0: it drained; the drain timer exits 1 when SHUTDOWN_TIMEOUT_MS passes first.
      expect(indexer.proc.child.exitCode).to.equal(0);
      expect(indexer.proc.stdout()).to.not.include('drain timed out');
      const between = (await api.call('GET', `/v2/index-jobs/${jobId}`)).json;
      expect(between).to.include({ status: 'running' });
      expect(between.progress.files_done).to.equal(0);

      indexer = await suite.start('ix-bomb-2', { PDF_TIMEOUT_MS: '1500' });
      const job = await waitForJob(api, jobId, 120_000);
      expect(job.status).to.equal('failed');
      const [file] = job.files;
      expect(file.error).to.include({ code: 'BW_ERR_DOCUMENT_UNREADABLE', reason: 'too-large' });
    });

    it('when a collection has 2,000 files, then one job indexes them all, with progress', async () => {
      const dir = join(storageDir, 'many');
      await mkdir(dir, { recursive: true });
      for (let i = 0; i < 2000; i += 1) {
        await writeFile(join(dir, `f-${i}.csv`), `Item,Colour\nitem ${i},blue${i}\n`);
      }
      indexer = await suite.start('ix-many');
      const jobId = await index(api, 'many');
      const seen = await waitFor(
        async () => {
          const { json } = await api.call('GET', `/v2/index-jobs/${jobId}`);
          const done = json.progress.files_done as number;
          return done > 0 && done < 2000 ? done : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 50, what: 'progress part-way' },
      );
      expect(seen).to.be.within(1, 1999);
      const job = await waitForJob(api, jobId, 200_000);
      expect(job.status).to.equal('succeeded');
      expect(job.progress).to.include({ files_total: 2000, files_done: 2000, chunks_done: 2000 });
    });
  });
});

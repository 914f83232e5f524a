/**
 * Indexing jobs at their edges: text Postgres cannot store, a re-index whose
 * detected language differs, files without text, a job whose indexer keeps dying, an indexer
 * stopped with SIGTERM mid-job, a file's last batch refused, collections created at once, uploads cut
 * short, ids BullMQ refuses.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExtractLimits } from '../src/indexer/extract/index.ts';
import { runIndexJob } from '../src/indexer/run-job.ts';
import {
  beginAttempt,
  deleteOlderGenerations,
  ensureCollection,
  storeFile,
} from '../src/indexer/store.ts';
import { createDb, type Knex } from '../src/shared/db.ts';
import { createJob } from '../src/shared/knowledge/jobs.ts';
import { searchCollection } from '../src/shared/knowledge/search.ts';
import { createLogger } from '../src/shared/logger.ts';
import { SchemaRegistry } from '../src/shared/schemas.ts';
import type { TestApi } from './support/api.ts';
import { stopComponent, type ComponentProcess } from './support/components.ts';
import { ods, pdf, worksheet, xlsx } from './support/knowledge-fixtures.ts';
import { index, indexerProcessSuite, upload, waitForJob } from './support/knowledge.ts';
import { partHead, postMultipart } from './support/multipart.ts';
import {
  createTestSchema,
  DATABASE_URL,
  waitFor,
  withStatements,
  type TestSchema,
} from './support/services.ts';

describe('knowledge: indexing jobs at their edges', function () {
  this.timeout(180_000);

  describe('one job run in-process', () => {
    let schema: TestSchema;
    let db: Knex;
    let storageDir: string;
    let dir: string;
    let jobs = 0;
    const logger = createLogger({ component: 'indexer', level: 'silent' });

    before(async () => {
      schema = await createTestSchema();
      db = schema.db;
      storageDir = await mkdtemp(join(tmpdir(), 'botwire-jobs-'));
      dir = join(storageDir, 'c');
      await mkdir(dir);
    });

    after(async () => {
      await schema?.drop();
      await rm(storageDir, { recursive: true, force: true });
    });

    const run = async (files: string[], limits: ExtractLimits = {}) => {
      jobs += 1;
      const jobId = `job_${jobs}`;
      await createJob(db, { jobId, collection: 'c', files, options: {} });
      const finish = await runIndexJob({ db, storageDir, limits, logger }, jobId);
      const row = await db('index_jobs').where({ job_id: jobId }).first();
      return { finish, outcome: row.outcome as Record<string, any> };
    };

    it('when a spreadsheet cell holds a lone surrogate, then the file is stored with U+FFFD in its place', async () => {
      const cell = (r: string, t: string) => `<c r="${r}" t="inlineStr"><is><t>${t}</t></is></c>`;
      const sheet = worksheet(
        `<sheetData><row r="1">${cell('A1', 'Frage')}${cell('B1', 'Antwort')}</row><row r="2">${cell('A2', 'Seltsam &#xD800; Zeichen')}${cell('B2', 'Die Fahrräder werden jeden Montag in der Werkstatt gewartet.')}</row></sheetData>`,
      );
      await writeFile(join(dir, 'odd.xlsx'), xlsx(sheet));
      await writeFile(
        join(dir, 'good.csv'),
        'Frage,Antwort\nWann ist offen?,Die Werkstatt ist von Montag bis Freitag geöffnet und repariert Fahrräder.\n',
      );
      const { finish, outcome } = await run(['good.csv', 'odd.xlsx']);
      expect(finish).to.deep.include({ status: 'succeeded' });
      expect(outcome['odd.xlsx']).to.include({ status: 'indexed' });
      const { hits, language } = await searchCollection(db, 'c', 'seltsam', 5);
      expect(language).to.equal('german');
      expect(hits[0]?.text).to.contain('Seltsam \uFFFD Zeichen');
    });

    it('when a re-index would detect another language and a file fails, then the collection keeps its language and the kept chunks stay findable', async () => {
      await writeFile(
        join(dir, 'english.csv'),
        'Question,Answer\nWhen is the shop open?,The shop is open every weekday from nine in the morning until six in the evening.\n',
      );
      await writeFile(join(dir, 'odd.xlsx'), Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0]));
      const { finish, outcome } = await run(['english.csv', 'odd.xlsx', 'good.csv']);
      expect(finish).to.deep.include({ status: 'partial' });
      expect(outcome['odd.xlsx']).to.deep.include({ status: 'failed', kept_chunks: 1 });
      const seltsam = await searchCollection(db, 'c', 'seltsam', 5);
      expect(seltsam.language).to.equal('german');
      expect(seltsam.hits).to.have.length(1);
      expect((await searchCollection(db, 'c', 'Fahrräder', 5)).hits).to.have.length(2);
    });

    it('when a PDF holds no text (a scan), then it fails as no-text and its previous content is kept', async () => {
      await writeFile(join(dir, 'scan.pdf'), await pdf(['']));
      const { finish, outcome } = await run(['good.csv', 'scan.pdf']);
      expect(finish).to.deep.include({ status: 'partial' });
      expect(outcome['scan.pdf'].error).to.deep.include({
        code: 'BW_ERR_DOCUMENT_UNREADABLE',
        reason: 'no-text',
      });
      const only = await run(['scan.pdf']);
      expect(only.finish).to.deep.include({ status: 'failed' });
      expect((await searchCollection(db, 'c', 'Werkstatt', 5)).hits).to.have.length(1);
    });

    it("when a job's spreadsheets are read in one worker and one of them kills it, then the files before and after it are still read", async () => {
      const sheet = (word: string) =>
        `Name,Note\n${word},A spreadsheet row about ${word} for the worker test.\n`;
      await writeFile(join(dir, 'before.csv'), sheet('alpha'));
      // Expands to 10^9 cells: the worker runs out of its (small) memory and is terminated.
      await writeFile(
        join(dir, 'bomb.ods'),
        ods(
          '<table:table-row table:number-rows-repeated="1000000"><table:table-cell office:value-type="string" table:number-columns-repeated="1000"><text:p>boom</text:p></table:table-cell></table:table-row>',
        ),
      );
      await writeFile(join(dir, 'after.csv'), sheet('omega'));
      await writeFile(
        join(dir, 'last.xlsx'),
        xlsx(
          worksheet(
            '<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Name</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>zeta</t></is></c></row></sheetData>',
          ),
        ),
      );
      const { finish, outcome } = await run(['before.csv', 'bomb.ods', 'after.csv', 'last.xlsx'], {
        spreadsheet: { maxMemoryMb: 64 },
      });
      expect(finish).to.deep.include({ status: 'partial' });
      expect(outcome['bomb.ods']).to.deep.include({ status: 'failed' });
      expect(outcome['bomb.ods'].error).to.include({ reason: 'too-large' });
      for (const file of ['before.csv', 'after.csv', 'last.xlsx']) {
        expect(outcome[file], file).to.include({ status: 'indexed' });
      }
      for (const word of ['alpha', 'omega', 'zeta']) {
        expect((await searchCollection(db, 'c', word, 5)).hits, word).to.have.length(1);
      }
    });

    it('when the older generations cannot be deleted after a swap, then the job still succeeds, reports it, and the next swap deletes them', async () => {
      const { id, active_generation: old } = await db('collections')
        .where({ name: 'c' })
        .first('id', 'active_generation');
      const olderRows = () =>
        db('chunks')
          .where({ collection_id: id })
          .whereNot({ generation: db('collections').where({ id }).select('active_generation') })
          .count({ n: '*' })
          .first()
          .then((row) => Number(row?.n));
      // The indexer's pool with a short statement limit, and the old chunks locked by another
      // session: the delete after the swap waits on them until the server cancels it.
      const limited = createDb(DATABASE_URL, {
        poolMax: 4,
        searchPath: schema.schema,
        statementTimeoutMs: 1000,
      });
      try {
        await writeFile(join(dir, 'new.csv'), 'Name,Note\nnova,The newest row of all.\n');
        const holder = await db.transaction();
        try {
          await holder('chunks').where({ collection_id: id, generation: old }).forUpdate();
          jobs += 1;
          const jobId = `job_${jobs}`;
          await createJob(db, { jobId, collection: 'c', files: ['new.csv'], options: {} });
          const finish = await runIndexJob({ db: limited, storageDir, limits: {}, logger }, jobId);
          expect(finish).to.deep.include({ status: 'succeeded', chunks: 1 });
          expect((finish as { cleanupErrors?: string[] }).cleanupErrors)
            .to.be.an('array')
            .with.length(1);
          expect((finish as { cleanupErrors: string[] }).cleanupErrors[0]).to.match(
            /^deleting older generations: \[57014\] /,
          );
        } finally {
          await holder.commit();
        }
        expect((await searchCollection(db, 'c', 'nova', 5)).hits).to.have.length(1);
        expect((await searchCollection(db, 'c', 'alpha', 5)).hits).to.have.length(0);
        expect(await olderRows()).to.be.above(0);
        const next = await run(['new.csv']);
        expect(next.finish).to.deep.equal({ status: 'succeeded', chunks: 1 });
        expect(await olderRows()).to.equal(0);
      } finally {
        await limited.destroy();
      }
    });
  });

  describe('the store on its own (a refused batch, collections created at once)', () => {
    let schema: TestSchema;

    before(async () => {
      schema = await createTestSchema();
    });

    after(async () => {
      await schema?.drop();
    });

    it('when Postgres refuses a later batch of a file, then none of its chunks and no outcome are stored, and storing it again stores each chunk once', async () => {
      const { db } = schema;
      await createJob(db, { jobId: 'job_part', collection: 'part', files: [], options: {} });
      const job = await beginAttempt(db, 'job_part');
      if (!job) throw new Error('the job did not begin');
      const collectionId = await ensureCollection(db, 'part');
      const chunks = Array.from({ length: 1600 }, (_, i) => ({ text: `page ${i}`, page: i + 1 }));
      const args = {
        job,
        collectionId,
        file: 'big.pdf',
        language: 'english',
        outcome: { status: 'indexed' as const, chunks: chunks.length },
      };
      const count = async () => {
        const row = await db('chunks')
          .where({ collection_id: collectionId, generation: job.id, file: 'big.pdf' })
          .count<{ n: string }[]>({ n: '*' })
          .first();
        return Number(row?.n);
      };
      // A page number Postgres refuses (beyond int) in the last of four batches of 500.
      const broken = chunks.map((chunk, i) => (i === 1550 ? { ...chunk, page: 2 ** 31 } : chunk));
      let error: unknown;
      await storeFile(db, { ...args, chunks: broken }).catch((e: unknown) => (error = e));
      expect((error as { code?: string }).code).to.equal('22003');
      expect(await count()).to.equal(0);
      let row = await db('index_jobs').where({ id: job.id }).first();
      expect(row.outcome).to.deep.equal({});
      await storeFile(db, { ...args, chunks });
      expect(await count()).to.equal(1600);
      row = await db('index_jobs').where({ id: job.id }).first();
      expect(row.outcome['big.pdf']).to.deep.equal({ status: 'indexed', chunks: 1600 });
      expect(row.chunks_done).to.equal(1600);
    });

    it('when older generations are deleted, then it goes in batches until none is left, and the newer generation stays', async () => {
      const { db } = schema;
      const collectionId = await ensureCollection(db, 'gens');
      const generation = async (jobId: string, count: number) => {
        await createJob(db, { jobId, collection: 'gens', files: [], options: {} });
        const job = await beginAttempt(db, jobId);
        if (!job) throw new Error(`${jobId} did not begin`);
        const chunks = Array.from({ length: count }, (_, i) => ({ text: `row ${i}`, page: i + 1 }));
        await storeFile(db, {
          job,
          collectionId,
          file: 'f.pdf',
          language: 'english',
          chunks,
          outcome: { status: 'indexed', chunks: count },
        });
        return job.id;
      };
      const first = await generation('job_gen_1', 3);
      const second = await generation('job_gen_2', 2);
      const newest = await generation('job_gen_3', 4);
      const { result: deleted, statements } = await withStatements(db, () =>
        deleteOlderGenerations(db, collectionId, newest, 2),
      );
      expect(deleted).to.equal(5);
      expect(statements.filter((sql) => sql.startsWith('delete'))).to.have.length(3);
      const left = await db('chunks')
        .where({ collection_id: collectionId })
        .groupBy('generation')
        .select('generation', db.raw('count(*)::int as n'));
      expect(left).to.deep.equal([{ generation: newest, n: 4 }]);
      expect([first, second].every((g) => BigInt(g) < BigInt(newest))).to.equal(true);
    });

    it('when several jobs create collections at the same time, some of the same name, then each gets one id and a partition, and none deadlocks', async () => {
      const names = ['a', 'b', 'c', 'd', 'e', 'f', 'a', 'a', 'b', 'b'];
      const ids = await Promise.all(names.map((name) => ensureCollection(schema.db, name)));
      const byName = new Map<string, Set<string>>();
      names.forEach((name, i) => byName.set(name, (byName.get(name) ?? new Set()).add(ids[i]!)));
      for (const [name, set] of byName) expect(set.size, name).to.equal(1);
      for (const id of new Set(ids)) {
        const part = await schema.db.raw<{ rows: { n: string }[] }>(
          `select count(*) as n from pg_inherits i join pg_class c on c.oid = i.inhrelid
           where c.relname = ? and c.relnamespace = current_schema()::regnamespace`,
          [`chunks_${id}`],
        );
        expect(Number(part.rows[0]?.n), id).to.equal(1);
      }
    });

    it("when a collection is inserted from a session whose search_path lacks the schema, then its partition is made in the collection's schema", async () => {
      const { db, schema: name } = schema;
      await db.transaction(async (trx) => {
        await trx.raw('set local search_path to public');
        await trx.raw('insert into ??.collections (name) values (?)', [name, 'elsewhere']);
      });
      const [row] = await db('collections').where({ name: 'elsewhere' }).select('id');
      const part = await db.raw<{ rows: { schema: string }[] }>(
        `select n.nspname as schema from pg_inherits i join pg_class c on c.oid = i.inhrelid
         join pg_namespace n on n.oid = c.relnamespace where c.relname = ?`,
        [`chunks_${(row as { id: string }).id}`],
      );
      expect(part.rows.map((r) => r.schema)).to.deep.equal([name]);
    });
  });

  describe('the indexer as a process', () => {
    const suite = indexerProcessSuite('botwire-jobs-', {
      INDEXER_LOCK_MS: '1000',
      INDEXER_ATTEMPTS: '2',
      MAX_DOCUMENT_BYTES: '100000',
    });
    let api: TestApi;
    let storageDir: string;
    let indexer: ComponentProcess;

    before(() => {
      ({ api, storageDir } = suite);
    });

    it('when the indexer dies on a job more often than allowed, then the job is recorded failed, not left running', async () => {
      await mkdir(join(storageDir, 'stall'), { recursive: true });
      execFileSync('mkfifo', [join(storageDir, 'stall', 'hang.csv')]); // reading it never ends
      const jobId = await index(api, 'stall', { files: ['hang.csv'] });
      const row = () => api.schema.db('index_jobs').where({ job_id: jobId }).first();
      for (let i = 1; i <= 3; i += 1) {
        indexer = await suite.start(`ix-${i}`);
        await waitFor(async () => ((await row()).attempts as number) >= i, {
          timeoutMs: 60_000,
          what: `attempt ${i}`,
        });
        await stopComponent(indexer, 'SIGKILL');
      }
      indexer = await suite.start('ix-4');
      const job = await waitForJob(api, jobId, 90_000);
      expect(job.status).to.equal('failed');
      expect(job.error).to.equal(
        'indexing failed: the indexer stopped too often while running this job',
      );
    });

    it('when the indexer is stopped with SIGTERM mid-job, then it exits after the file in hand and the next one finishes the job', async () => {
      const docs = await Promise.all(
        Array.from({ length: 10 }, (_, f) =>
          pdf(
            Array.from(
              { length: 30 },
              (_, p) => `Manual ${f}, page ${p + 1}. ${'Gears and chains. '.repeat(20)}`,
            ),
          ),
        ),
      );
      const files = Object.fromEntries(docs.map((d, i) => [`m-${i}.pdf`, d]));
      expect((await upload(api, 'term', files)).status).to.equal(201);
      indexer = await suite.start('ix-term-1');
      const jobId = await index(api, 'term');
      await waitFor(
        async () =>
          ((await api.call('GET', `/v2/index-jobs/${jobId}`)).json.progress.files_done as number) >=
          1,
        { timeoutMs: 60_000, what: 'one file done' },
      );
      await stopComponent(indexer, 'SIGTERM');
      expect(indexer.proc.child.exitCode).to.equal(0);
      const between = (await api.call('GET', `/v2/index-jobs/${jobId}`)).json;
      expect(between.status).to.equal('running');
      expect(between.progress.files_done).to.be.lessThan(10);
      indexer = await suite.start('ix-term-2');
      const job = await waitForJob(api, jobId, 90_000);
      expect(job.status).to.equal('succeeded');
      expect(job.progress.files_done).to.equal(10);
    });

    it('when an upload is cut short or names a hidden file, then 400 (BW_ERR_SCHEMA, BW_ERR_FILE_NAME) and nothing is stored', async () => {
      const head = (name: string) => partHead('XyZ', name, 'application/pdf');
      const send = async (parts: (string | Buffer)[]) => {
        const { status, json } = await postMultipart(
          api,
          '/v2/collections/cut/files',
          'XyZ',
          parts,
        );
        return { status, code: (json as { error: { code: string } }).error.code };
      };
      expect(await send([head('a.pdf'), Buffer.alloc(5000, 65)])).to.deep.equal({
        status: 400,
        code: 'BW_ERR_SCHEMA',
      });
      expect(await send([head('.secret.pdf'), 'x', '\r\n--XyZ--\r\n'])).to.deep.equal({
        status: 400,
        code: 'BW_ERR_FILE_NAME',
      });
      // The collection's folder was made for the refused uploads, so it went with them.
      expect(existsSync(join(storageDir, 'cut'))).to.equal(false);
      expect(api.logs.some((line) => /"level":50/.test(line))).to.equal(false);
    });

    it('when an indexer topic message names an all-digit job id (BullMQ refuses those), then the schema refuses it', () => {
      const result = new SchemaRegistry().validate('topics/indexer', {
        collection_name: 'c',
        files: ['a.pdf'],
        job_id: '12345',
      });
      expect(result.ok).to.equal(false);
    });
  });
});

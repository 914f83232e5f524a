/**
 * Knowledge end to end: documents uploaded through the admin API (or named in an `indexer` topic
 * message sent with send-message.sh), indexed by the indexer's BullMQ jobs into real Postgres, and
 * searched through the admin API. Real PDFs (pdfkit) and workbooks (SheetJS), non-ASCII text.
 */
import { expect } from 'chai';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import XLSX from 'xlsx';
import { startComponent, stopComponent } from './support/components.ts';
import { ods, pdf } from './support/knowledge-fixtures.ts';
import { expectDescribedAs } from './support/openapi-answer.ts';
import {
  index,
  search,
  startKnowledge,
  upload,
  waitForJob,
  type KnowledgeEnv,
} from './support/knowledge.ts';
import { run } from './support/run.ts';
import { REDIS_URL, ROOT, waitFor } from './support/services.ts';

const MANUAL_PAGES = [
  'Welcome to the Velo bike shop manual. This first page introduces the shop and its friendly staff.',
  'Chain maintenance: clean the chain every two hundred kilometres and oil it sparingly. Grüße aus Köln, señor.',
  'Opening hours: the workshop opens at nine and closes at six, Monday to Saturday. Café au lait is free.',
];

function priceBook(): Buffer {
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(
    book,
    XLSX.utils.aoa_to_sheet([
      ['Model', 'Price', 'Farbe'],
      ['Roadster', '499', 'Blau'],
      ['Mountain Explorer', '899', 'Grün'],
      ['Tandem Deluxe', '1299', 'Weiß'],
    ]),
    'Bikes',
  );
  XLSX.utils.book_append_sheet(
    book,
    XLSX.utils.aoa_to_sheet([
      ['Part', 'Stock'],
      ['Brake pads', '40'],
      ['Inner tube 28"', '120'],
    ]),
    'Parts',
  );
  return XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
}

/** Documents over this size are refused (set small so the test makes one cheaply). */
const MAX_DOCUMENT_BYTES = 300_000;

/** An ods under 1 KiB that SheetJS expands to 10^9 cells: stopped by the worker's memory cap. */
const ODS_BOMB = ods(
  '<table:table-row table:number-rows-repeated="1000000"><table:table-cell office:value-type="string" table:number-columns-repeated="1000"><text:p>boom</text:p></table:table-cell></table:table-row>',
);

describe('knowledge: indexing and search', function () {
  this.timeout(120_000);
  let env: KnowledgeEnv;
  let manual: Buffer;
  let prices: Buffer;

  before(async () => {
    env = await startKnowledge({
      MAX_DOCUMENT_BYTES: String(MAX_DOCUMENT_BYTES),
      SPREADSHEET_MEMORY_MB: '64',
    });
    await env.startComponents();
    manual = await pdf(MANUAL_PAGES);
    prices = priceBook();
  });

  after(async () => {
    await env?.stop();
  });

  it('when a PDF and a workbook are uploaded and indexed, then a phrase from page 2 finds that page first, and a row finds its sheet and row', async () => {
    const uploaded = await upload(env.api, 'shop', { 'manual.pdf': manual, 'prices.xlsx': prices });
    expect(uploaded.status, JSON.stringify(uploaded.json)).to.equal(201);
    expect(uploaded.json.files.map((f: { name: string }) => f.name)).to.deep.equal([
      'manual.pdf',
      'prices.xlsx',
    ]);
    expect(uploaded.json.files[0].bytes).to.equal(manual.length);
    expectDescribedAs('upload-result', uploaded.json);

    const jobId = await index(env.api, 'shop');
    const job = await waitForJob(env.api, jobId);
    expect(job.status, JSON.stringify(job)).to.equal('succeeded');
    expect(job.progress.files_done).to.equal(2);
    const byName = Object.fromEntries(job.files.map((f: { name: string }) => [f.name, f]));
    expect(byName['manual.pdf']).to.include({ status: 'indexed', pages: 3 });
    expect(byName['prices.xlsx']).to.include({ status: 'indexed', sheets: 2, rows: 5 });
    expect(job.progress.chunks_done).to.equal(
      byName['manual.pdf'].chunks + byName['prices.xlsx'].chunks,
    );
    expectDescribedAs('index-job', job);
    expectDescribedAs('collection', (await env.api.call('GET', '/v2/collections/shop')).json);

    const chain = await search(env.api, 'shop', 'clean the chain every two hundred kilometres');
    expect(chain.language).to.equal('english');
    expect(chain.hits[0].source).to.deep.equal({ file: 'manual.pdf', page: 2 });
    expect(chain.hits[0].snippet).to.contain('<mark>');

    const nonAscii = await search(env.api, 'shop', 'Köln');
    expect(nonAscii.hits[0].source).to.deep.equal({ file: 'manual.pdf', page: 2 });

    const tandem = await search(env.api, 'shop', 'Tandem Deluxe price');
    expect(tandem.hits[0].source).to.deep.include({ file: 'prices.xlsx', sheet: 'Bikes' });
    expect(tandem.hits[0].text).to.contain('Model: Tandem Deluxe; Price: 1299; Farbe: Weiß');
    expectDescribedAs('search-result', chain);
    expectDescribedAs('search-result', tandem);

    const prefix = await search(env.api, 'shop', 'worksh');
    expect(prefix.hits[0].source).to.deep.equal({ file: 'manual.pdf', page: 3 });
  });

  it('when the example FAQ (examples/shop-faq.csv) is indexed, then a question finds its row', async () => {
    const csv = await readFile(join(ROOT, 'examples/shop-faq.csv'));
    expect((await upload(env.api, 'shop-faq', { 'shop-faq.csv': csv })).status).to.equal(201);
    const job = await waitForJob(env.api, await index(env.api, 'shop-faq'));
    expect(job.status).to.equal('succeeded');
    const { hits } = await search(env.api, 'shop-faq', 'rent an e-bike');
    expect(hits[0].text).to.contain('Question: Do you rent bikes?');
    expect(hits[0].source.sheet).to.be.a('string');
  });

  it('when the same files are named in an indexer topic message sent with send-message.sh, then the collection holds the same chunks as through the API', async () => {
    const dir = join(env.storageDir, 'shop-topic');
    await mkdir(dir, { recursive: true });
    for (const file of ['manual.pdf', 'prices.xlsx'])
      await copyFile(join(env.storageDir, 'shop', file), join(dir, file));

    const sent = await run(
      './scripts/send-message.sh',
      [
        'indexer',
        JSON.stringify({ collection_name: 'shop-topic', files: ['manual.pdf', 'prices.xlsx'] }),
      ],
      { env: { REDIS_URL, STREAM_PREFIX: env.api.prefix, ENV_FILE: '/nonexistent/.env' } },
    );
    expect(sent.code, sent.stderr).to.equal(0);

    const db = env.api.schema.db;
    const row = await waitFor(
      () =>
        db<{ job_id: string; collection_name: string }>('index_jobs')
          .where({ collection_name: 'shop-topic' })
          .first('job_id'),
      { what: 'the job of the topic message' },
    );
    const job = await waitForJob(env.api, row.job_id);
    expect(job.status).to.equal('succeeded');

    const chunksOf = (name: string) =>
      db('chunks as c')
        .join('collections as k', 'k.id', 'c.collection_id')
        .where('k.name', name)
        .whereRaw('c.generation = k.active_generation')
        .orderBy(['c.file', 'c.ordinal'])
        .select(
          'c.file',
          'c.ordinal',
          'c.page',
          'c.sheet',
          'c.row_first',
          'c.row_last',
          'c.text',
          db.raw('c.tsv::text as tsv'),
        );
    const viaApi = await chunksOf('shop');
    expect(viaApi.length).to.be.greaterThan(2);
    expect(await chunksOf('shop-topic')).to.deep.equal(viaApi);
  });

  it('when a collection is re-indexed while queries run, then every query answers from the old or the new content, never an empty or a mixed one', async () => {
    const edition = (n: string) =>
      Promise.all(
        [1, 2, 3, 4, 5, 6].map((f) =>
          pdf(
            [1, 2, 3, 4].map(
              (p) => `Bicycle guide ${f}, page ${p}: edition ${n} of the bicycle text.`,
            ),
          ),
        ),
      );
    const files = (docs: Buffer[]) =>
      Object.fromEntries(docs.map((d, i) => [`guide-${i + 1}.pdf`, d]));
    expect((await upload(env.api, 'swap', files(await edition('one')))).status).to.equal(201);
    expect((await waitForJob(env.api, await index(env.api, 'swap'))).status).to.equal('succeeded');

    const second = await upload(env.api, 'swap', files(await edition('two')), { replace: true });
    expect(second.status).to.equal(201);
    const jobId = await index(env.api, 'swap');
    const seen: string[] = [];
    let finished = false;
    const watcher = waitForJob(env.api, jobId).finally(() => (finished = true));
    for (let after = 0; after < 5;) {
      if (finished) after += 1;
      const { hits } = await search(env.api, 'swap', 'bicycle', 50);
      const editions = new Set(
        hits.map((h: { text: string }) => /edition (one|two)/.exec(h.text)?.[1]),
      );
      expect(hits.length, 'hits of one query').to.equal(24);
      expect([...editions], 'editions in one answer').to.have.length(1);
      seen.push([...editions][0] as string);
    }
    expect((await watcher).status).to.equal('succeeded');
    expect(seen[seen.length - 1]).to.equal('two');
    expect(seen.join(' ')).to.match(/^(one )*(two ?)+$/);
  });

  describe('bad files', () => {
    const outcomes = (job: { files: { name: string }[] }): Record<string, any> =>
      Object.fromEntries(job.files.map((f) => [f.name, f]));

    it('when some files of a re-index are bad, then each fails alone with its reason, the good ones are indexed, and a bad file keeps its previous content', async () => {
      const notes = await pdf(['Tyre pressure notes: pump road tyres to six bar.']);
      expect(
        (
          await upload(env.api, 'bad', {
            'notes.pdf': notes,
            'good.pdf': await pdf(['Saddle height, first edition.']),
          })
        ).status,
      ).to.equal(201);
      expect((await waitForJob(env.api, await index(env.api, 'bad'))).status).to.equal('succeeded');

      const dir = join(env.storageDir, 'bad');
      await writeFile(join(dir, 'good.pdf'), await pdf(['Saddle height, second edition.']));
      await writeFile(join(dir, 'notes.pdf'), notes.subarray(0, notes.length / 2));
      await writeFile(join(dir, 'encrypted.pdf'), await pdf(['secret'], { userPassword: 'pw' }));
      await writeFile(join(dir, 'text.pdf'), 'this is not a PDF at all');
      await writeFile(join(dir, 'bomb.ods'), ODS_BOMB);
      await writeFile(
        join(dir, 'big.pdf'),
        Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(MAX_DOCUMENT_BYTES + 1)]),
      );
      const files = [
        'good.pdf',
        'notes.pdf',
        'encrypted.pdf',
        'text.pdf',
        'bomb.ods',
        'missing.pdf',
        'big.pdf',
      ];
      const searches: number[] = [];
      const jobId = await index(env.api, 'bad', { files });
      let done = false;
      const watcher = waitForJob(env.api, jobId).finally(() => (done = true));
      while (!done) searches.push((await search(env.api, 'bad', 'tyre pressure')).hits.length);
      const job = await watcher;

      expect(job.status, JSON.stringify(job)).to.equal('partial');
      expectDescribedAs('index-job', job);
      const byName = outcomes(job);
      expect(byName['good.pdf']).to.include({ status: 'indexed' });
      const failure = (name: string) => ({
        code: byName[name].error.code,
        reason: byName[name].error.reason,
      });
      expect(failure('notes.pdf')).to.deep.equal({
        code: 'BW_ERR_DOCUMENT_UNREADABLE',
        reason: 'damaged',
      });
      expect(byName['notes.pdf'].kept_chunks).to.equal(1);
      expect(failure('encrypted.pdf')).to.deep.equal({
        code: 'BW_ERR_DOCUMENT_UNREADABLE',
        reason: 'encrypted',
      });
      expect(failure('text.pdf')).to.deep.equal({
        code: 'BW_ERR_DOCUMENT_UNREADABLE',
        reason: 'wrong-type',
      });
      expect(failure('bomb.ods')).to.deep.equal({
        code: 'BW_ERR_DOCUMENT_UNREADABLE',
        reason: 'too-large',
      });
      expect(failure('missing.pdf')).to.deep.equal({ code: 'BW_ERR_NOT_FOUND', reason: 'missing' });
      expect(failure('big.pdf')).to.deep.equal({
        code: 'BW_ERR_DOCUMENT_TOO_LARGE',
        reason: undefined,
      });
      for (const name of files.slice(1))
        expect(byName[name].error.message).to.be.a('string').and.not.equal('');

      expect(
        searches.every((n) => n === 1),
        `hits while indexing: ${searches.join(',')}`,
      ).to.equal(true);
      const tyre = await search(env.api, 'bad', 'tyre pressure');
      expect(tyre.hits[0].source).to.deep.equal({ file: 'notes.pdf', page: 1 });
      const saddle = await search(env.api, 'bad', 'saddle height edition');
      expect(saddle.hits.map((h: { text: string }) => h.text)).to.deep.equal([
        'Saddle height, second edition.',
      ]);
    });

    it('when every file of a re-index is bad, then the job fails and the collection is unchanged', async () => {
      const job = await waitForJob(
        env.api,
        await index(env.api, 'bad', { files: ['missing.pdf', 'text.pdf'] }),
      );
      expect(job.status).to.equal('failed');
      expect(job.error).to.match(/no file could be indexed/);
      expect((await search(env.api, 'bad', 'tyre pressure')).hits).to.have.length(1);
      expect((await search(env.api, 'bad', 'saddle')).hits).to.have.length(1);
    });

    it('when an upload is too large, of an unread type or badly named, then it is refused with its code and nothing is stored', async () => {
      const before = await readdir(join(env.storageDir, 'bad'));
      const big = await upload(env.api, 'bad', {
        'huge.pdf': Buffer.alloc(MAX_DOCUMENT_BYTES + 10, 1),
      });
      expect([big.status, big.json.error.code]).to.deep.equal([413, 'BW_ERR_DOCUMENT_TOO_LARGE']);
      const docx = await upload(env.api, 'bad', {
        'ok.pdf': Buffer.from('%PDF-'),
        'letter.docx': Buffer.from('x'),
      });
      expect([docx.status, docx.json.error.code]).to.deep.equal([
        415,
        'BW_ERR_DOCUMENT_UNSUPPORTED',
      ]);
      const dots = await upload(env.api, 'bad', { '..': Buffer.from('x') });
      expect(dots.status).to.equal(400);
      const name = await upload(env.api, '..evil', { 'a.pdf': Buffer.from('x') });
      expect([name.status, name.json.error.code]).to.deep.equal([400, 'BW_ERR_SCHEMA']);
      const json = await env.api.call('POST', '/v2/collections/bad/files', { body: { file: 'x' } });
      expect([json.status, json.json.error.code]).to.deep.equal([
        415,
        'BW_ERR_UNSUPPORTED_MEDIA_TYPE',
      ]);
      expect(await readdir(join(env.storageDir, 'bad'))).to.deep.equal(before);
    });
  });

  describe('an indexer killed mid-job', () => {
    it('when the indexer process is killed with SIGKILL during a job, then a new one takes the job over and it ends with no duplicated chunk', async () => {
      await env.stopComponents();
      const docs = await Promise.all(
        Array.from({ length: 12 }, (_, f) =>
          pdf(
            Array.from(
              { length: 40 },
              (_, p) =>
                `Workshop manual ${f}, page ${p + 1}. ${'Spokes, rims and hubs. '.repeat(20)}`,
            ),
          ),
        ),
      );
      const files = Object.fromEntries(
        docs.map((d, i) => [`manual-${String(i).padStart(2, '0')}.pdf`, d]),
      );
      expect((await upload(env.api, 'killed', files)).status).to.equal(201);
      const settings = { ...env.api.env, LOG_LEVEL: 'info' };
      let indexer = await startComponent('indexer', 'indexer-1', settings);
      try {
        const jobId = await index(env.api, 'killed');
        await waitFor(
          async () =>
            ((await env.api.call('GET', `/v2/index-jobs/${jobId}`)).json.progress
              .files_done as number) >= 2,
          { timeoutMs: 60_000, what: 'two files done' },
        );
        await stopComponent(indexer, 'SIGKILL');
        const doneAtKill = (await env.api.call('GET', `/v2/index-jobs/${jobId}`)).json.progress
          .files_done as number;
        expect(doneAtKill).to.be.lessThan(12);
        indexer = await startComponent('indexer', 'indexer-2', settings);
        const job = await waitForJob(env.api, jobId, 90_000);
        expect(job.status, JSON.stringify(job)).to.equal('succeeded');
        expect(job.attempts).to.be.greaterThan(1);

        const db = env.api.schema.db;
        const stored = await db('chunks as c')
          .join('collections as k', 'k.id', 'c.collection_id')
          .where('k.name', 'killed')
          .select('c.generation', 'c.file', 'c.ordinal', 'c.text');
        const perFile = job.files.reduce((sum: number, f: { chunks: number }) => sum + f.chunks, 0);
        expect(stored.length).to.equal(perFile);
        expect(job.progress.chunks_done).to.equal(perFile);
        expect(new Set(stored.map((c) => c.generation)).size).to.equal(1);
        expect(new Set(stored.map((c) => `${c.file}#${c.text}`)).size).to.equal(stored.length);
      } finally {
        await stopComponent(indexer);
        await env.startComponents();
      }
    });
  });

  describe('scripts/index.sh', () => {
    const script = (args: string[], url = env.api.url) =>
      run('./scripts/index.sh', args, {
        env: {
          BOTWIRE_API_URL: url,
          ADMIN_API_KEY: env.api.adminKey,
          ENV_FILE: '/nonexistent/.env',
        },
      });

    it('when a file fails, then it uploads and indexes the rest, shows progress, and exits 1 naming the file and its reason; mended (with --shared), the collection indexes whole and every bot may read it', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'botwire-index-sh-'));
      try {
        await writeFile(
          join(dir, 'pumps.pdf'),
          await pdf(['Floor pumps with a gauge.', 'Mini pumps for the road.']),
        );
        await writeFile(join(dir, 'broken.pdf'), 'not a pdf');
        const failed = await script(['cli', join(dir, 'pumps.pdf'), join(dir, 'broken.pdf')]);
        expect(failed.code, failed.stderr).to.equal(1);
        expect(failed.stderr).to.match(/\[#{30}\] 2\/2 files, \d+ chunks/);
        expect(failed.stdout).to.match(/^indexed {2}pumps\.pdf \(\d+ chunks\)$/m);
        expect(failed.stdout).to.match(
          /^FAILED {3}broken\.pdf: BW_ERR_DOCUMENT_UNREADABLE \(wrong-type\): the file is not a PDF$/m,
        );
        expect(failed.stdout).to.match(/^job job_\S+ partial$/m);
        expect((await search(env.api, 'cli', 'mini pumps')).hits[0].source).to.deep.equal({
          file: 'pumps.pdf',
          page: 2,
        });

        // The collection is indexed whole: mending the broken file makes the next run clean, and
        // the file uploaded before stays searchable.
        await writeFile(join(dir, 'broken.pdf'), await pdf(['Tyre levers and patches.']));
        const ok = await script(['--shared', 'cli', join(dir, 'broken.pdf')]);
        expect(ok.code, ok.stderr).to.equal(0);
        expect((await env.api.call('GET', '/v2/collections/cli')).json.shared).to.equal(true);
        expect(ok.stdout).to.match(/^indexed {2}broken\.pdf \(1 chunks\)$/m);
        expect(ok.stdout).to.match(/^indexed {2}pumps\.pdf/m);
        expect(ok.stdout).to.match(/^job job_\S+ succeeded$/m);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('when used wrongly or the api is down, then it exits 2 or 3 with the reason', async () => {
      const usage = await script(['cli']);
      expect([usage.code, usage.stderr.trim()]).to.deep.equal([
        2,
        'error: usage: index.sh [--bot <app_id>] [--shared] <collection> <file ...>',
      ]);
      const unknown = await script(['--owner', 'x', 'cli', 'package.json']);
      expect(unknown.code).to.equal(2);
      expect(unknown.stderr).to.match(/Unknown option '--owner'/);
      const missing = await script(['cli', '/nonexistent/file.pdf']);
      expect([missing.code, missing.stderr.trim()]).to.deep.equal([
        2,
        'error: /nonexistent/file.pdf: no such file',
      ]);
      const down = await script(['cli', 'package.json'], 'http://127.0.0.1:9');
      expect(down.code).to.equal(3);
      expect(down.stderr).to.match(/could not be reached/);
    });
  });
});

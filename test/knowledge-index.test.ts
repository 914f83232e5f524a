/**
 * Knowledge end to end: documents uploaded through the admin API (or named in an `indexer` topic
 * message sent with send-message.sh), indexed by the indexer's BullMQ jobs into real Postgres, and
 * searched through the admin API. Real PDFs (pdfkit) and workbooks (SheetJS), non-ASCII text.
 */
import { expect } from 'chai';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import XLSX from 'xlsx';
import { pdf } from './support/knowledge-fixtures.ts';
import {
  index,
  search,
  startKnowledge,
  upload,
  waitForJob,
  type KnowledgeEnv,
} from './support/knowledge.ts';
import { run } from './support/run.ts';
import { REDIS_URL } from './support/services.ts';

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

describe('knowledge: indexing and search', function () {
  this.timeout(120_000);
  let env: KnowledgeEnv;
  let manual: Buffer;
  let prices: Buffer;

  before(async () => {
    env = await startKnowledge();
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

    const chain = await search(env.api, 'shop', 'clean the chain every two hundred kilometres');
    expect(chain.language).to.equal('english');
    expect(chain.hits[0].source).to.deep.equal({ file: 'manual.pdf', page: 2 });
    expect(chain.hits[0].snippet).to.contain('<mark>');

    const nonAscii = await search(env.api, 'shop', 'Köln');
    expect(nonAscii.hits[0].source).to.deep.equal({ file: 'manual.pdf', page: 2 });

    const tandem = await search(env.api, 'shop', 'Tandem Deluxe price');
    expect(tandem.hits[0].source).to.deep.include({ file: 'prices.xlsx', sheet: 'Bikes' });
    expect(tandem.hits[0].text).to.contain('Model: Tandem Deluxe; Price: 1299; Farbe: Weiß');

    const prefix = await search(env.api, 'shop', 'worksh');
    expect(prefix.hits[0].source).to.deep.equal({ file: 'manual.pdf', page: 3 });
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
    const row = await waitForRow(() =>
      db('index_jobs').where({ collection_name: 'shop-topic' }).first('job_id'),
    );
    const job = await waitForJob(env.api, (row as { job_id: string }).job_id);
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
});

async function waitForRow<T>(query: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const row = await query();
    if (row) return row;
    if (Date.now() > deadline) throw new Error('timed out waiting for a row');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

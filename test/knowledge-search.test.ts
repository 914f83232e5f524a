/**
 * searchCollection against real Postgres: how many matching chunks it ranks. Chunks are stored
 * through the indexer's own store code (a job created, begun and finished), without files.
 */
import { expect } from 'chai';
import {
  beginAttempt,
  ensureCollection,
  finishJob,
  reloadJob,
  storeFile,
} from '../src/indexer/store.ts';
import { createJob } from '../src/shared/knowledge/jobs.ts';
import { RANKED_CANDIDATES, searchCollection } from '../src/shared/knowledge/search.ts';
import { createTestSchema, type TestSchema } from './support/services.ts';

/** Ten chunks that all hold "bicycle"; the last one holds it most often, so it ranks best. */
const TEXTS = [
  ...Array.from(
    { length: 9 },
    (_, i) => `Chunk ${i + 1} mentions a bicycle once, among many other words about the shop.`,
  ),
  'Bicycle, bicycle, bicycle: the bicycle chapter.',
];

describe('knowledge: search ranking', function () {
  this.timeout(60_000);
  let schema: TestSchema;

  before(async () => {
    schema = await createTestSchema();
    const { db } = schema;
    await createJob(db, { jobId: 'job_ranking', collection: 'shop', files: [], options: {} });
    const job = await beginAttempt(db, 'job_ranking');
    if (!job) throw new Error('the job did not begin');
    const collectionId = await ensureCollection(db, 'shop');
    await storeFile(db, {
      job,
      collectionId,
      file: 'manual.pdf',
      language: 'english',
      chunks: TEXTS.map((text, i) => ({ text, page: i + 1 })),
      outcome: { status: 'indexed', chunks: TEXTS.length },
    });
    await finishJob(db, await reloadJob(db, job), collectionId, 'english');
  });

  after(async () => {
    await schema?.drop();
  });

  it('when fewer chunks match than are ranked, then the best-ranked chunk of all comes first', async () => {
    expect(RANKED_CANDIDATES).to.be.greaterThan(TEXTS.length);
    const result = await searchCollection(schema.db, 'shop', 'bicycle', 3);
    expect(result.hits).to.have.length(3);
    expect(result.hits[0]?.source).to.deep.equal({ file: 'manual.pdf', page: 10 });
  });

  it('when more chunks match than are ranked, then the hits are the best of the first candidates, each holding the term', async () => {
    const result = await searchCollection(schema.db, 'shop', 'bicycle', 3, { candidates: 4 });
    expect(result.hits).to.have.length(3);
    const pages = result.hits.map((hit) => (hit.source as { page: number }).page);
    expect(pages.every((page) => page <= 4)).to.equal(true, `pages ${pages.join(', ')}`);
    for (const hit of result.hits) expect(hit.text.toLowerCase()).to.contain('bicycle');
  });

  it('when no chunk holds every term, then chunks holding any term still fill the k hits', async () => {
    const result = await searchCollection(schema.db, 'shop', 'bicycle zeppelin', 2, {
      candidates: 4,
    });
    expect(result.hits).to.have.length(2);
    for (const hit of result.hits) expect(hit.text.toLowerCase()).to.contain('bicycle');
  });
});

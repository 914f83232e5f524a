/**
 * The clean-up of vectors no chunk uses, after a job's swap, against a job created while it runs:
 * each batch looks for other jobs again under the lock jobs are recorded under, so the new job's
 * vectors (or old ones it is about to use) are never deleted from under it.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { deleteUnusedVectors } from '../src/indexer/embed-chunks.ts';
import { createJob } from '../src/shared/knowledge/jobs.ts';
import { createTestSchema, waitFor, type TestSchema } from './support/services.ts';

describe('knowledge: the clean-up of unused vectors', function () {
  this.timeout(60_000);
  let schema: TestSchema;

  beforeEach(async () => {
    schema = await createTestSchema();
  });

  afterEach(async () => {
    await schema?.drop();
  });

  it('when a job of the collection is created while the clean-up deletes, then it deletes nothing more from then on', async () => {
    const { db } = schema;
    const [collection] = await db('collections')
      .insert({ name: 'manual' })
      .returning<{ id: string }[]>('id');
    const finishing = await createJob(db, {
      jobId: 'job_finishing',
      collection: 'manual',
      files: ['a.pdf'],
      options: {},
    });
    await db('index_jobs').where({ id: finishing.id }).update({ status: 'succeeded' });
    // 300 vectors no chunk uses (the collection has no active generation): all due to go.
    const total = 300;
    await db('chunk_vectors').insert(
      Array.from({ length: total }, () => ({
        collection_id: collection!.id,
        model: 'local',
        text_sha: randomBytes(32),
        dims: 4,
        embedding: Buffer.alloc(16),
      })),
    );
    const count = async () =>
      Number(
        (await db('chunk_vectors').where({ collection_id: collection!.id }).count({ n: '*' }))[0]!
          .n,
      );
    // One row a statement, so the clean-up is still running when the new job is recorded.
    const cleanup = deleteUnusedVectors(db, collection!.id, finishing.id, 1);
    await waitFor(async () => (await count()) < total - 5, { what: 'the clean-up to be deleting' });
    await createJob(db, { jobId: 'job_new', collection: 'manual', files: ['b.pdf'], options: {} });
    const left = await count();
    await cleanup;
    expect(left).to.be.greaterThan(0);
    expect(await count(), 'deleted after the new job was recorded').to.equal(left);
  });
});

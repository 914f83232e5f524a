/**
 * A slow or failing embeddings API holds up only the jobs of the collections that embed with it:
 * one indexer (INDEXER_CONCURRENCY=1), a collection embedding through a stand-in API that takes
 * two seconds a call, then fails, and another collection indexed meanwhile for words. The second
 * job finishes while the first is still embedding, and the first one's failure is its own.
 */
import { expect } from 'chai';
import { pdf } from './support/knowledge-fixtures.ts';
import { answer, standIn } from './support/embeddings-stub.ts';
import {
  index,
  startKnowledge,
  upload,
  waitForJob,
  type KnowledgeEnv,
} from './support/knowledge.ts';
import { waitFor } from './support/services.ts';

/** A document of its own per name: each chunk's text differs, so each needs its vector. */
const document = (name: string) =>
  pdf([`${name}: how to look after the brakes and gears of bicycle ${name}, step by step.`]);

describe('knowledge: a slow embeddings API and the other collections', function () {
  this.timeout(120_000);
  let env: KnowledgeEnv;
  let api: Awaited<ReturnType<typeof standIn>>;
  let failing = false;

  before(async () => {
    api = await standIn((call, _n, res) => {
      setTimeout(() => {
        if (failing) {
          res.statusCode = 500;
          res.end('{"error":{"message":"down"}}');
        } else answer(res, call.input, 8);
      }, 2000);
    });
    env = await startKnowledge({
      EMBEDDINGS_PROVIDER: 'none',
      EMBEDDINGS_API_URL: api.url,
      EMBEDDINGS_DIMENSIONS: '8',
      EMBEDDINGS_TIMEOUT_MS: '5000',
      INDEXER_CONCURRENCY: '1',
      INDEXER_SLICE_MS: '0',
      INDEXER_ATTEMPTS: '1',
    });
    await env.startComponents();
  });

  after(async () => {
    await env?.stop();
    await api?.close();
  });

  it('when one collection embeds through a slow API, then another collection’s job runs and finishes while it is still embedding', async () => {
    const slowFiles = Object.fromEntries(
      await Promise.all(['a', 'b', 'c', 'd'].map(async (n) => [`${n}.pdf`, await document(n)])),
    );
    expect((await upload(env.api, 'slow', slowFiles)).status).to.equal(201);
    expect((await upload(env.api, 'words', { 'w.pdf': await document('w') })).status).to.equal(201);
    const slow = await index(env.api, 'slow', { embedding_model: 'api' });
    // The slow job is embedding (its first call is out) before the other is asked for.
    await waitFor(() => api.calls.length > 0, { what: 'the first embeddings call' });
    const words = await index(env.api, 'words', { embedding_model: 'none' });
    const other = await waitForJob(env.api, words);
    expect(other.status).to.equal('succeeded');
    const meanwhile = await env.api.call('GET', `/v2/index-jobs/${slow}`);
    expect(meanwhile.json.status, 'the slow job when the other finished').to.equal('running');
    const done = await waitForJob(env.api, slow);
    expect(done.status).to.equal('succeeded');
    expect(done.progress.chunks_embedded).to.equal(4);
  });

  it('when the API fails, then only the job embedding through it fails, and another collection’s job succeeds', async () => {
    failing = true;
    expect((await upload(env.api, 'down', { 'x.pdf': await document('x') })).status).to.equal(201);
    expect((await upload(env.api, 'fine', { 'y.pdf': await document('y') })).status).to.equal(201);
    const down = await index(env.api, 'down', { embedding_model: 'api' });
    const fine = await index(env.api, 'fine', { embedding_model: 'none' });
    expect((await waitForJob(env.api, fine)).status).to.equal('succeeded');
    const failed = await waitForJob(env.api, down);
    expect(failed.status).to.equal('failed');
    expect(failed.error).to.be.a('string');
  });
});

/**
 * Indexing with the embedded model under faults: an indexer SIGKILLed mid-embedding (the job
 * finishes once, every chunk has exactly one vector, nothing embedded twice for nothing), and a
 * re-index while questions are searched by meaning (no search sees old and new content mixed).
 */
import { expect } from 'chai';
import { startComponent, stopComponent } from './support/components.ts';
import { pdf } from './support/knowledge-fixtures.ts';
import {
  index,
  startKnowledge,
  upload,
  waitForJob,
  type KnowledgeEnv,
} from './support/knowledge.ts';
import { waitFor } from './support/services.ts';

/** `count` pages of distinct sentences (each chunk's text differs, so each needs its vector). */
function pages(prefix: string, count: number): string[] {
  const topics = ['brakes', 'gears', 'tyres', 'saddles', 'chains', 'lights', 'locks', 'pedals'];
  return Array.from(
    { length: count },
    (_, i) =>
      `${prefix} ${i + 1}: how to look after the ${topics[i % topics.length]} of bicycle number ${i * 7 + 3}, step ${i + 2}.`,
  );
}

describe('knowledge: vectors under faults (embedded model)', function () {
  this.timeout(180_000);
  let env: KnowledgeEnv;

  before(async () => {
    env = await startKnowledge({ EMBEDDINGS_PROVIDER: 'local' });
  });

  after(async () => {
    await env?.stop();
  });

  it('when the indexer is SIGKILLed mid-embedding, then a new one finishes the job once and every chunk has exactly one vector', async () => {
    const files = Object.fromEntries(
      await Promise.all(
        ['a', 'b', 'c'].map(
          async (name) => [`${name}.pdf`, await pdf(pages(`Manual ${name} page`, 60))] as const,
        ),
      ),
    );
    expect((await upload(env.api, 'killed', files)).status).to.equal(201);
    const settings = { ...env.api.env, LOG_LEVEL: 'info' };
    let indexer = await startComponent('indexer', 'indexer-1', settings);
    try {
      const jobId = await index(env.api, 'killed');
      const job = async () => (await env.api.call('GET', `/v2/index-jobs/${jobId}`)).json;
      await waitFor(async () => ((await job()).progress.chunks_embedded as number) >= 40, {
        timeoutMs: 90_000,
        what: '40 chunks embedded',
      });
      await stopComponent(indexer, 'SIGKILL');
      const atKill = (await job()).progress;
      expect(atKill.files_done, 'killed before the last file').to.be.lessThan(3);
      indexer = await startComponent('indexer', 'indexer-2', settings);
      const done = await waitForJob(env.api, jobId, 120_000);
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      expect(done.attempts).to.be.greaterThan(1);

      const db = env.api.schema.db;
      const collection = await db('collections').where({ name: 'killed' }).first();
      expect(collection.vectors_model).to.equal('local:use-lite-en');
      const { rows } = await db.raw(
        `select count(*)::int as chunks, count(v.text_sha)::int as with_vector,
                count(distinct ch.text_sha)::int as texts,
                (select count(*)::int from chunk_vectors where collection_id = ?) as vectors
         from chunks ch left join chunk_vectors v on v.collection_id = ch.collection_id
           and v.model = ? and v.text_sha = ch.text_sha
         where ch.collection_id = ? and ch.generation = ?`,
        [collection.id, collection.vectors_model, collection.id, collection.active_generation],
      );
      const counted = rows[0];
      expect(counted.chunks).to.equal(done.progress.chunks_done);
      // Every chunk joins exactly one vector, and the collection holds no other.
      expect(counted.with_vector).to.equal(counted.chunks);
      expect(counted.vectors).to.equal(counted.texts);
      // Each vector was made once: batches committed before the kill were found, not made again.
      expect(done.progress.chunks_embedded).to.equal(counted.texts);
    } finally {
      await stopComponent(indexer);
    }
  });

  it('when a collection is re-indexed while it is searched by meaning, then each search sees the old or the new content, never both', async () => {
    await env.startComponents();
    try {
      expect(
        (await upload(env.api, 'swap', { 'old.pdf': await pdf(pages('Old guide page', 30)) }))
          .status,
      ).to.equal(201);
      expect(
        (await waitForJob(env.api, await index(env.api, 'swap', { files: ['old.pdf'] }))).status,
      ).to.equal('succeeded');
      expect(
        (await upload(env.api, 'swap', { 'new.pdf': await pdf(pages('New guide page', 30)) }))
          .status,
      ).to.equal(201);
      const seen = { old: 0, new: 0, mixed: 0 };
      const searchAll = async (): Promise<void> => {
        for (const mode of ['semantic', 'hybrid']) {
          const result = await env.api.call(
            'GET',
            `/v2/collections/swap/search?q=${encodeURIComponent('how do I look after my brakes?')}&k=10&mode=${mode}`,
          );
          expect(result.status).to.equal(200);
          const files = new Set(
            result.json.hits.map((hit: { source: { file: string } }) => hit.source.file),
          );
          if (files.size > 1) seen.mixed += 1;
          else if (files.has('new.pdf')) seen.new += 1;
          else if (files.has('old.pdf')) seen.old += 1;
        }
      };
      // The first searches load the model and the old content's index: before the re-index starts.
      await searchAll();
      expect(seen.old).to.equal(2);
      let reindexed = false;
      const searching = (async () => {
        while (!reindexed || seen.new === 0) await searchAll();
      })();
      const jobId = await index(env.api, 'swap', { files: ['new.pdf'] });
      expect((await waitForJob(env.api, jobId, 120_000)).status).to.equal('succeeded');
      reindexed = true;
      await searching;
      expect(seen.mixed, JSON.stringify(seen)).to.equal(0);
      expect(seen.old, JSON.stringify(seen)).to.be.greaterThan(0);
      expect(seen.new, JSON.stringify(seen)).to.be.greaterThan(0);
    } finally {
      await env.stopComponents();
    }
  });

  it('when a job is to embed with a provider this indexer has no settings for, then it fails at its first attempt, naming the setting', async () => {
    await env.startComponents();
    try {
      expect(
        (await upload(env.api, 'no-api', { 'a.pdf': await pdf(pages('Page', 2)) })).status,
      ).to.equal(201);
      const done = await waitForJob(
        env.api,
        await index(env.api, 'no-api', { embedding_model: 'api' }),
      );
      expect(done.status).to.equal('failed');
      expect(done.attempts).to.equal(1);
      expect(done.error).to.contain('EMBEDDINGS_API_URL');
    } finally {
      await env.stopComponents();
    }
  });

  it('when a re-index with a new model fails a file, then the chunks kept from its previous content get vectors of the new model', async () => {
    await env.startComponents();
    try {
      const db = env.api.schema.db;
      const files = {
        'a.pdf': await pdf(pages('Alpha guide page', 4)),
        'b.pdf': await pdf(pages('Beta guide page', 4)),
      };
      expect((await upload(env.api, 'kept', files)).status).to.equal(201);
      const words = await waitForJob(
        env.api,
        await index(env.api, 'kept', { embedding_model: 'none' }),
      );
      expect(words.status).to.equal('succeeded');
      // a.pdf is replaced by a file that is not a PDF: the next job fails it and keeps its chunks.
      const broken = { 'a.pdf': Buffer.from('not a pdf at all') };
      expect((await upload(env.api, 'kept', broken, { replace: true })).status).to.equal(201);
      const meaning = await waitForJob(
        env.api,
        await index(env.api, 'kept', { embedding_model: 'local' }),
      );
      expect(meaning.status).to.equal('partial');
      const collection = await db('collections').where({ name: 'kept' }).first();
      expect(collection.vectors_model).to.equal('local:use-lite-en');
      const { rows } = await db.raw(
        `select ch.file, count(*)::int as chunks, count(v.text_sha)::int as with_vector
         from chunks ch left join chunk_vectors v on v.collection_id = ch.collection_id
           and v.model = ? and v.text_sha = ch.text_sha
         where ch.collection_id = ? and ch.generation = ?
         group by ch.file order by ch.file`,
        [collection.vectors_model, collection.id, collection.active_generation],
      );
      expect(rows).to.deep.equal([
        { file: 'a.pdf', chunks: 4, with_vector: 4 },
        { file: 'b.pdf', chunks: 4, with_vector: 4 },
      ]);
    } finally {
      await env.stopComponents();
    }
  });
});

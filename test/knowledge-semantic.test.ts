/**
 * Knowledge by meaning with the embedded model (real vectors, no stand-in): chunks are stored and
 * embedded through the indexer's own code, then searched by words, by meaning and both.
 */
import { expect } from 'chai';
import { createEmbedders } from '../src/shared/embeddings/embedders.ts';
import { LOCAL_MODEL } from '../src/shared/embeddings/local-provider.ts';
import type { Embedders } from '../src/shared/embeddings/provider.ts';
import { createNearestChunks, type NearestChunks } from '../src/shared/embeddings/nearest.ts';
import { VectorIndexCache } from '../src/shared/embeddings/vector-cache.ts';
import { searchKnowledge, type SearchMode } from '../src/shared/knowledge/hybrid.ts';
import { CollectionCache, searchCollection } from '../src/shared/knowledge/search.ts';
import { LOCAL_ONLY, SHOP_PAGES } from './support/knowledge-fixtures.ts';
import { indexTexts } from './support/knowledge.ts';
import { createTestSchema, type TestSchema } from './support/services.ts';

describe('knowledge: search by meaning (embedded model)', function () {
  this.timeout(120_000);
  let schema: TestSchema;
  let embedders: Embedders;
  let vectors: VectorIndexCache;
  let nearest: NearestChunks;

  let jobs = 0;
  async function index(
    collection: string,
    texts: readonly string[],
    { meaning = true } = {},
  ): Promise<void> {
    jobs += 1;
    await indexTexts(schema.db, {
      collection,
      jobId: `job_${collection}_${jobs}`,
      texts,
      ...(meaning ? { provider: embedders.forChoice('local')! } : {}),
    });
  }

  const search = (q: string, mode?: SearchMode, k = 3) =>
    searchKnowledge({ db: schema.db, embedders, vectors: nearest }, 'shop', q, k, mode);

  before(async () => {
    schema = await createTestSchema();
    embedders = createEmbedders(LOCAL_ONLY);
    vectors = new VectorIndexCache(schema.db, 64 * 1024 * 1024);
    nearest = createNearestChunks(schema.db, { index: 'auto', cacheBytes: 64 * 1024 * 1024 });
    await index('shop', SHOP_PAGES);
  });

  after(async () => {
    await embedders?.close();
    await schema?.drop();
  });

  for (const [question, page] of [
    ['my tyre keeps going flat', 1],
    ['do you do finance?', 2],
    ['what time does the store shut on weekdays?', 3],
  ] as const) {
    it(`when asked "${question}", then meaning finds page ${page} and words do not`, async () => {
      const words = await search(question, 'words');
      expect(words.hits.map((h) => h.source)).not.to.deep.include({ file: 'help.pdf', page });
      for (const mode of ['semantic', 'hybrid'] as const) {
        const found = await search(question, mode);

        expect(found.mode).to.equal(mode);
        expect(found.hits[0]?.source, mode).to.deep.equal({ file: 'help.pdf', page });
      }
    });
  }

  it('when the question quotes an exact part number, then hybrid finds its page first', async () => {
    const found = await search('do you have BW-4471-K?');
    expect(found.mode).to.equal('hybrid');
    expect(found.vectors_model).to.equal(LOCAL_MODEL);
    expect(found.hits[0]?.source).to.deep.equal({ file: 'help.pdf', page: 5 });
    expect(found.hits[0]?.words_rank).to.equal(1);
  });

  it('when a search still holds an older generation than the one loaded, then the vector cache gives it no index (it reads the collection again)', async () => {
    await search('anything', 'semantic');
    const row = await schema.db('collections').where({ name: 'shop' }).first();
    const current = {
      collectionId: String(row.id),
      generation: String(row.active_generation),
      model: LOCAL_MODEL,
    };
    expect(await vectors.get(current)).to.not.equal(undefined);
    const older = { ...current, generation: String(BigInt(current.generation) - 1n) };
    expect(await vectors.get(older)).to.equal(undefined);
  });

  it('when a collection is re-indexed with another model after a search, then the next search with the same cache chooses its mode from the new one', async () => {
    const deps = {
      db: schema.db,
      embedders,
      vectors: nearest,
      collections: new CollectionCache(),
    };
    await index('remodel', SHOP_PAGES);
    const before = await searchKnowledge(deps, 'remodel', 'opening hours', 3);
    expect(before).to.include({ mode: 'hybrid', vectors_model: LOCAL_MODEL });
    await index('remodel', SHOP_PAGES, { meaning: false });
    const words = await searchKnowledge(deps, 'remodel', 'opening hours', 3);
    expect(words).to.include({ mode: 'words', vectors_model: null });
    await index('remodel', SHOP_PAGES);
    const back = await searchKnowledge(deps, 'remodel', 'opening hours', 3);
    expect(back).to.include({ mode: 'hybrid', vectors_model: LOCAL_MODEL });
    expect(back.hits[0]?.vector_score).to.be.a('number');
  });
  it("when the collection is re-indexed after the words' statement and before the neighbours' rows are read, then the search reads it again and answers from the new content alone", async () => {
    await index('turn', ['Old page about brake pads.', 'Old page about saddles.']);
    const oldIds = (
      await schema
        .db('chunks')
        .whereIn('collection_id', schema.db('collections').where({ name: 'turn' }).select('id'))
        .select('id')
    ).map((r: { id: string }) => Number(r.id));
    expect(oldIds).to.have.length(2);
    // The words' statement answers first, then the collection is re-indexed (the old generation
    // and its chunks deleted) while the question's neighbours are still being found.
    let answered!: () => void;
    const wordsAnswered = new Promise<void>((resolve) => (answered = resolve));
    const onResponse = (_r: unknown, q: { sql: string }) => {
      if (q.sql.includes('phrase_q')) answered();
    };
    schema.db.on('query-response', onResponse);
    const generations: (string | null)[] = [];
    try {
      const found = await searchCollection(schema.db, 'turn', 'brake pads', 3, {
        snippets: false,
        nearest: async (searched) => {
          generations.push(searched.generation);
          if (generations.length > 1) {
            const index = await vectors.get({
              collectionId: searched.collection_id,
              generation: searched.generation!,
              model: LOCAL_MODEL,
            });
            const [query] = await embedders.forChoice('local')!.embed(['brake pads']);
            return index?.search(query!, 3);
          }
          await wordsAnswered;
          await index('turn', ['New page about brake pads and discs.', 'New page about tyres.']);
          return oldIds.map((id) => ({ id, score: 0.9 }));
        },
      });
      expect(generations).to.have.length(2);
      expect(generations[1]).not.to.equal(generations[0]);
      const texts = [...found.hits, ...found.vectorHits].map((h) => h.text);
      expect(texts).to.include('New page about brake pads and discs.');
      expect(texts.filter((t) => t.startsWith('Old'))).to.deep.equal([]);
    } finally {
      schema.db.off('query-response', onResponse);
    }
  });
});

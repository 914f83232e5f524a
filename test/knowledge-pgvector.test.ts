/**
 * Knowledge by meaning where the database has pgvector: the migration gives `chunk_vectors` its
 * `pgv` column and HNSW index, the indexer's own code stores every vector there too, and a search
 * finds the nearest chunks inside Postgres, exactly for a small generation and through the HNSW
 * index for a large one, with the same answers as the in-memory index. The database is PGlite with
 * pgvector 0.8 (test/support/pglite.ts); vectors are the embedded model's, real.
 */
import { expect } from 'chai';
import { createEmbedders } from '../src/shared/embeddings/embedders.ts';
import { LOCAL_MODEL } from '../src/shared/embeddings/local-provider.ts';
import { createNearestChunks, pgvectorOf } from '../src/shared/embeddings/nearest.ts';
import { detectPgvector, hnswIndexName, PgvectorIndex } from '../src/shared/embeddings/pgvector.ts';
import { migrationSource } from '../src/shared/migrations.ts';
import type { Embedders } from '../src/shared/embeddings/provider.ts';
import { searchKnowledge } from '../src/shared/knowledge/hybrid.ts';
import { CollectionCache } from '../src/shared/knowledge/search.ts';
import { LOCAL_ONLY, SHOP_PAGES } from './support/knowledge-fixtures.ts';
import { indexTexts } from './support/knowledge.ts';
import { startPgvectorDatabase, type PgvectorDatabase } from './support/pglite.ts';
import { createTestSchema, withStatements, type TestSchema } from './support/services.ts';

describe('knowledge: the nearest chunks found by pgvector', function () {
  this.timeout(180_000);
  let database: PgvectorDatabase;
  let schema: TestSchema;
  let embedders: Embedders;
  let jobs = 0;

  const index = async (collection: string, texts: readonly string[]): Promise<void> => {
    jobs += 1;
    await indexTexts(schema.db, {
      collection,
      jobId: `job_${collection}_${jobs}`,
      texts,
      provider: embedders.forChoice('local')!,
    });
  };
  const generationOf = async (collection: string, db = schema.db) => {
    const row = await db('collections').where({ name: collection }).first();
    return {
      collectionId: String(row.id),
      generation: String(row.active_generation),
      model: LOCAL_MODEL,
    };
  };
  const embed = async (text: string) => (await embedders.forChoice('local')!.embed([text]))[0]!;

  before(async () => {
    database = await startPgvectorDatabase();
    schema = await createTestSchema(database.url);
    embedders = createEmbedders(LOCAL_ONLY);
    await index('shop', SHOP_PAGES);
  });

  after(async () => {
    await embedders?.close();
    await schema?.drop();
    await database?.stop();
  });

  it('when the database has pgvector, then the migration adds the pgv column and the indexer stores every vector there, under an HNSW index of its dimension count', async () => {
    const pgv = await pgvectorOf(schema.db);
    expect(pgv?.version).to.match(/^0\.8\./);
    expect(pgv?.iterative).to.equal(true);
    const vectors = await schema.db.raw<{ rows: { all: number; stored: number }[] }>(
      `select count(*)::int as all, count(pgv)::int as stored from chunk_vectors`,
    );
    expect(vectors.rows[0]).to.deep.equal({ all: SHOP_PAGES.length, stored: SHOP_PAGES.length });
    const indexes = await schema.db.raw<{ rows: { indexdef: string }[] }>(
      `select indexdef from pg_indexes where schemaname = current_schema() and indexname = ?`,
      [hnswIndexName(512)],
    );
    expect(indexes.rows[0]?.indexdef).to.match(
      /USING hnsw .*vector_cosine_ops.*WHERE \(dims = 512\)/,
    );
  });

  it('when a paraphrase is searched, then pgvector finds its passage as the in-memory index does, with the same similarities', async () => {
    const question = await embed('my tyre keeps going flat');
    const key = await generationOf('shop');
    const inPostgres = createNearestChunks(schema.db, { index: 'auto', cacheBytes: 1 << 20 });
    const inMemory = createNearestChunks(schema.db, { index: 'memory', cacheBytes: 1 << 20 });
    const [fromPostgres, fromMemory] = [
      await inPostgres.nearest(key, question, 3),
      await inMemory.nearest(key, question, 3),
    ];
    expect(inPostgres.kind).to.equal('pgvector');
    expect(inMemory.kind).to.equal('memory');
    expect(fromPostgres!.map((n) => n.id)).to.deep.equal(fromMemory!.map((n) => n.id));
    fromPostgres!.forEach((n, i) => expect(n.score).to.be.closeTo(fromMemory![i]!.score, 0.01));

    const found = await searchKnowledge(
      { db: schema.db, embedders, vectors: inPostgres, collections: new CollectionCache() },
      'shop',
      'my tyre keeps going flat',
      3,
      'semantic',
    );
    expect(found.hits[0]?.text).to.match(/^Puncture repair/);
    const hybrid = await searchKnowledge(
      { db: schema.db, embedders, vectors: inPostgres, collections: new CollectionCache() },
      'shop',
      'do you have BW-4471-K?',
      3,
    );
    expect(hybrid.mode).to.equal('hybrid');
    expect(hybrid.hits[0]?.text).to.match(/^Spare part BW-4471-K/);
  });

  it('when the HNSW index answers (a generation above the exact limit), then it gives the exact ranking, and never chunks of another collection or generation', async () => {
    await index('other-shop', SHOP_PAGES);
    await index('moving', ['Old page about brake pads.', 'Old page about saddles.']);
    const old = await generationOf('moving');
    await index('moving', ['New page about brake pads and discs.', 'New page about tyres.']);
    const pgv = (await pgvectorOf(schema.db))!;
    const byIndex = new PgvectorIndex(schema.db, pgv, { exactLimit: 0 });
    const exact = new PgvectorIndex(schema.db, pgv);
    const shop = await generationOf('shop');
    for (const text of ['can I pay later?', 'when are you open', 'a helmet for a day']) {
      const question = await embed(text);
      const { result: viaIndex, statements } = await withStatements(schema.db, () =>
        byIndex.nearest(shop, question, 4),
      );
      // Answered by the index's statement, not by the exact one it falls back to.
      expect(statements.some((sql) => sql.includes('with near as materialized'))).to.equal(true);
      expect(statements.some((sql) => sql.includes('v.pgv operator('))).to.equal(false);
      expect(viaIndex).to.have.length(4);
      expect(viaIndex).to.deep.equal(await exact.nearest(shop, question, 4));
    }
    const shopIds = (
      await schema.db('chunks').where({ collection_id: shop.collectionId }).select('id')
    ).map((r: { id: string }) => Number(r.id));
    const all = await byIndex.nearest(shop, await embed('bicycles'), 50);
    expect(all!.map((n) => n.id).sort()).to.deep.equal([...shopIds].sort());

    const moving = await generationOf('moving');
    const now = await byIndex.nearest(moving, await embed('brake pads'), 5);
    const newIds = (
      await schema
        .db('chunks')
        .where({ collection_id: moving.collectionId, generation: moving.generation })
        .select('id')
    ).map((r: { id: string }) => Number(r.id));
    expect(now!.map((n) => n.id).sort()).to.deep.equal([...newIds].sort());
    // The re-index deleted the old generation: its search is told to read the collection again.
    expect(
      await new PgvectorIndex(schema.db, pgv, { exactLimit: 0 }).nearest(
        old,
        await embed('brake pads'),
        5,
      ),
    ).to.equal(undefined);
  });

  it('when a database migrated before pgvector is migrated down past its migration and up again, then its vectors are filled in, indexed and searched', async () => {
    // A database of its own: PGlite is one session behind its socket, so two schemas' pools in
    // one would share one search_path.
    const fresh = await startPgvectorDatabase();
    const own = await createTestSchema(fresh.url);
    try {
      const at = { migrationSource, schemaName: own.schema };
      await own.db.migrate.down({ ...at, name: '20261201040000_pgvector.ts' });
      expect(await detectPgvector(own.db)).to.equal(undefined);
      jobs += 1;
      await indexTexts(own.db, {
        collection: 'before',
        jobId: `job_before_${jobs}`,
        texts: SHOP_PAGES,
        provider: embedders.forChoice('local')!,
      });
      await own.db.migrate.latest(at);
      const vectors = await own.db.raw<{ rows: { all: number; stored: number }[] }>(
        `select count(*)::int as all, count(pgv)::int as stored from chunk_vectors`,
      );
      expect(vectors.rows[0]).to.deep.equal({ all: SHOP_PAGES.length, stored: SHOP_PAGES.length });
      const pgv = (await detectPgvector(own.db))!;
      const found = await new PgvectorIndex(own.db, pgv, { exactLimit: 0 }).nearest(
        await generationOf('before', own.db),
        await embed('can I pay later?'),
        1,
      );
      const [best] = await own
        .db('chunks')
        .whereIn(
          'id',
          found!.map((n) => n.id),
        )
        .pluck('text');
      expect(best).to.match(/^Payment: you may spread the price/);
    } finally {
      await own.drop();
      await fresh.stop();
    }
  });

  it('when vectors were stored without their pgv (an indexer that did not know of pgvector yet), then their generation is searched in memory until the next job of the collection fills them in', async () => {
    await index('gaps', SHOP_PAGES);
    const key = await generationOf('gaps');
    await schema.db.raw(
      `update chunk_vectors set pgv = null
       where collection_id = ? and text_sha = (select text_sha from chunks where collection_id = ? and text like 'Payment%')`,
      [key.collectionId, key.collectionId],
    );
    const question = await embed('can I pay later?');
    const before = createNearestChunks(schema.db, { index: 'auto', cacheBytes: 1 << 20 });
    const [first] = (await before.nearest(key, question, 1))!;
    expect(before.kind).to.equal('memory');
    const [best] = await schema.db('chunks').where({ id: first!.id }).pluck('text');
    expect(best).to.match(/^Payment/);

    await index('gaps', SHOP_PAGES); // unchanged text: nothing embedded, the missing pgv filled in
    const stored = await schema.db.raw<{ rows: { missing: number }[] }>(
      `select count(*)::int as missing from chunk_vectors where collection_id = ? and pgv is null`,
      [key.collectionId],
    );
    expect(stored.rows[0]!.missing).to.equal(0);
    const after = createNearestChunks(schema.db, { index: 'auto', cacheBytes: 1 << 20 });
    const [again] = (await after.nearest(await generationOf('gaps'), question, 1))!;
    expect(after.kind).to.equal('pgvector');
    expect(await schema.db('chunks').where({ id: again!.id }).pluck('text')).to.deep.equal([best]);
  });

  it('when the process is set to VECTOR_INDEX=memory, then it searches in memory even where pgvector is', async () => {
    const nearest = createNearestChunks(schema.db, { index: 'memory', cacheBytes: 1 << 20 });
    const found = await nearest.nearest(
      await generationOf('shop'),
      await embed('opening hours'),
      1,
    );
    expect(nearest.kind).to.equal('memory');
    expect(nearest.bytes).to.be.greaterThan(0);
    expect(found).to.have.length(1);
  });
});

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
import {
  CollectionCache,
  RANKED_CANDIDATES,
  searchCollection,
} from '../src/shared/knowledge/search.ts';
import { migrationSource } from '../src/shared/migrations.ts';
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

  let jobs = 0;

  /** Stores `texts` as the pages of manual.pdf, the whole content of `collection`. */
  async function storeCollection(
    collection: string,
    texts: string[],
    language = 'english',
  ): Promise<void> {
    const { db } = schema;
    jobs += 1;
    const jobId = `job_${collection}_${jobs}`;
    await createJob(db, { jobId, collection, files: [], options: {} });
    const job = await beginAttempt(db, jobId);
    if (!job) throw new Error('the job did not begin');
    const collectionId = await ensureCollection(db, collection);
    await storeFile(db, {
      job,
      collectionId,
      file: 'manual.pdf',
      language,
      chunks: texts.map((text, i) => ({ text, page: i + 1 })),
      outcome: { status: 'indexed', chunks: texts.length },
    });
    await finishJob(db, await reloadJob(db, job), collectionId, language);
  }

  before(async () => {
    schema = await createTestSchema();
    await storeCollection('shop', TEXTS);
    await storeCollection('prices', [
      'Tandem Deluxe costs 1299 euros.',
      'Brake pads: 12 in stock.',
      'Inner tubes for wheels of 28 inches.',
    ]);
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

  it('when a query holds a number or a short word, then it matches that whole word, not every word it starts', async () => {
    const twelve = await searchCollection(schema.db, 'prices', '12', 5);
    expect(twelve.hits.map((hit) => hit.source)).to.deep.equal([{ file: 'manual.pdf', page: 2 }]);
    const half = await searchCollection(schema.db, 'prices', '½', 5);
    expect(half.hits).to.deep.equal([]);
    const prefix = await searchCollection(schema.db, 'prices', 'tand', 5);
    expect(prefix.hits.map((hit) => hit.source)).to.deep.equal([{ file: 'manual.pdf', page: 1 }]);
  });

  it('when one chunk holds the words whole and another only as prefixes, then the whole words rank first, however often the other holds them', async () => {
    await storeCollection('words', [
      'Bikeshed, shop. Bikeshed, shop. Bikeshed shop: the bikeshed shop again.',
      'Our shop repairs every bike.',
    ]);
    const result = await searchCollection(schema.db, 'words', 'bike shop', 5);
    expect(result.hits.map((hit) => hit.source)).to.deep.equal([
      { file: 'manual.pdf', page: 2 },
      { file: 'manual.pdf', page: 1 },
    ]);
  });

  it('when a collection is re-indexed in another language after a search, then the next search parses the query in the new one, with or without a cache', async () => {
    const cache = new CollectionCache();
    await storeCollection('relang', ['The quick fox.']);
    const before = await searchCollection(schema.db, 'relang', 'quick', 5, { cache });
    expect(before.language).to.equal('english');
    // "the" is an English stop word; the simple configuration indexes it.
    expect((await searchCollection(schema.db, 'relang', 'the', 5, { cache })).hits).to.deep.equal(
      [],
    );
    await storeCollection('relang', ['The slow fox.'], 'simple');
    for (const options of [{ cache }, {}]) {
      const after = await searchCollection(schema.db, 'relang', 'the', 5, options);
      expect(after.language).to.equal('simple');
      expect(after.hits.map((hit) => hit.text)).to.deep.equal(['The slow fox.']);
    }
  });

  it("when collections are stored, then each one's chunks live in a partition of its own, with fresh statistics", async () => {
    const { db } = schema;
    const collections = await db<{ id: string; name: string; chunk_count: number }>(
      'collections',
    ).whereIn('name', ['shop', 'prices']);
    expect(collections).to.have.length(2);
    for (const { id, name, chunk_count } of collections) {
      const partition = `chunks_${id}`;
      const held = await db(partition).count<{ n: string }[]>({ n: '*' }).first();
      expect(Number(held?.n), name).to.equal(chunk_count);
      const others = await db(partition)
        .whereNot({ collection_id: id })
        .count<{ n: string }[]>({ n: '*' })
        .first();
      expect(Number(others?.n), name).to.equal(0);
      // Analysed by finishJob: the planner estimates from this collection's words alone.
      const stats = await db.raw<{ rows: { n: string }[] }>(
        `select count(*) as n from pg_stats where tablename = ? and attname = 'tsv' and schemaname = current_schema()`,
        [partition],
      );
      expect(Number(stats.rows[0]?.n), name).to.equal(1);
    }
  });

  it('when the semantic knowledge migration runs on collections indexed before it, then their word counts and text hashes are filled in', async () => {
    const { db } = schema;
    const options = {
      migrationSource,
      schemaName: schema.schema,
      name: '20261128190000_semantic_knowledge.ts',
    };
    const counts = async () =>
      (
        await db.raw(
          `select (select count(*)::int from collection_terms ct join collections c
                   on c.id = ct.collection_id and c.name = 'prices') as terms,
                (select count(*)::int from chunks ch join collections c
                   on c.id = ch.collection_id and c.name = 'prices'
                 where ch.text_sha = sha256(convert_to(ch.text, 'UTF8'))) as hashed`,
        )
      ).rows[0] as { terms: number; hashed: number };
    const before = await counts();
    expect(before.terms).to.be.greaterThan(0);
    await db.migrate.down(options);
    await db.migrate.up(options);
    expect(await counts()).to.deep.equal(before);
    expect((await searchCollection(db, 'prices', 'tandem', 5)).hits).to.have.length(1);
  });

  describe('paths, codes, rare words and typos', () => {
    /** 40 pages about volumes and groups; one mentions vgextend, one /etc/resolv.conf, one quotas. */
    const ADMIN = [
      ...Array.from(
        { length: 36 },
        (_, i) =>
          `Page ${i + 1}: use the tools to add a volume to a group, then check the group and the volume you use.`,
      ),
      'To grow it, run vgextend with the new physical volume as its argument.',
      'The name servers are indicated in /etc/resolv.conf, one nameserver line each.',
      'Disk quotas limit how much space each user may take on a file system.',
      'Order the spare part BW-4471-K (brake lever) at the counter.',
    ];
    before(async () => {
      await storeCollection('admin', ADMIN);
    });

    const first = async (q: string, candidates?: number): Promise<number | undefined> => {
      const result = await searchCollection(
        schema.db,
        'admin',
        q,
        5,
        candidates ? { candidates } : {},
      );
      return (result.hits[0]?.source as { page: number } | undefined)?.page;
    };

    it('when a path is asked whole or by its file name, then the chunk that names it comes first', async () => {
      expect(await first('/etc/resolv.conf')).to.equal(38);
      expect(await first('resolv.conf')).to.equal(38);
      expect(await first('where is resolv.conf?')).to.equal(38);
    });

    it('when a part number is asked whole or by its digits, then its chunk comes first', async () => {
      expect(await first('BW-4471-K')).to.equal(40);
      expect(await first('4471')).to.equal(40);
    });

    it('when a rare word is asked in a sentence of common words, then its chunk comes first, even with the candidates capped', async () => {
      expect(await first('How do I use vgextend to add a volume to a group?')).to.equal(37);
      // The common words match every other page: with 4 candidates, the rare word still picks them.
      expect(await first('How do I use vgextend to add a volume to a group?', 4)).to.equal(37);
    });

    it("when a word is misspelt, then the collection's nearest word is searched instead", async () => {
      expect(await first('quotta')).to.equal(39);
      expect(await first('how do disk quotas work')).to.equal(39);
    });
  });
});

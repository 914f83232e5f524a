/**
 * Search queries as users type them: quotes, backslashes, tsquery operators, scripts, emoji, NUL,
 * random bytes. None may make Postgres throw (every word is a quoted term), and the awkward words
 * still find their chunk.
 */
import { expect } from 'chai';
import { queryTerms, searchCollection } from '../src/shared/knowledge/search.ts';
import { createTestSchema, type TestSchema } from './support/services.ts';

const TEXT = "It's the e-mail of O'Brien: C++ and foo_bar, 3.5 kg, über café";
const LANGUAGES = ['english', 'simple', 'german'];

/** A small deterministic generator, so a failure names a query that fails again. */
function randomQueries(count: number, seed = 42): string[] {
  let state = seed;
  const next = (): number => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(next() * 12) }, () =>
      String.fromCharCode(32 + Math.floor(next() * 200)),
    ).join(''),
  );
}

describe('knowledge: hostile search queries', function () {
  this.timeout(120_000);
  let schema: TestSchema;

  before(async () => {
    schema = await createTestSchema();
    for (const language of LANGUAGES) {
      const [row] = await schema
        .db('collections')
        .insert({ name: `c-${language}`, language, active_generation: 1 })
        .returning<{ id: string }[]>('id');
      await schema.db.raw(
        `insert into chunks (collection_id, generation, file, ordinal, page, text, tsv)
         values (?, 1, 'f.pdf', 0, 1, ?, to_tsvector(?::regconfig, ?))`,
        [row!.id, TEXT, language, TEXT],
      );
    }
  });

  after(async () => {
    await schema?.drop();
  });

  it('when 2,500 hostile or random queries are searched in three languages, then none makes Postgres throw', async () => {
    const fixed = [
      'a:b',
      "foo's",
      '\\',
      "'",
      "\\'",
      "''",
      '!',
      '&|',
      '<->',
      'foo:*',
      'x:1',
      'テスト',
      '١٢٣',
      'e-mail',
      'C++',
      'foo_bar',
      'über',
      '😀',
      'a.b.c',
      '1,000.5',
      "don't",
      "o'brien",
      'a\\b',
      "a\\'b",
      'x:A',
      'x:*:*',
      "it's:*",
      'the',
      'the a of',
      '_',
      '__proto__',
      "a'b:c",
      '3.5kg',
      'http://x.y/z?q=1',
      'user@example.com',
      'ǅ',
      'ß',
      'İstanbul',
      '\u0000',
      'a\u0301',
      'ﬁ',
      'Ⅻ',
      'x'.repeat(200),
      "'; drop table chunks; --",
      '{{constructor.constructor("x")()}}',
    ];
    const queries = [...fixed, ...randomQueries(800)];
    const failures: string[] = [];
    for (const language of LANGUAGES) {
      for (const q of queries) {
        try {
          await searchCollection(schema.db, `c-${language}`, q, 5);
        } catch (error) {
          failures.push(
            `${language} ${JSON.stringify(q)} ${JSON.stringify(queryTerms(q))}: ${(error as Error).message}`,
          );
        }
      }
    }
    expect(LANGUAGES.length * queries.length).to.be.greaterThan(2500);
    expect(failures.slice(0, 10)).to.deep.equal([]);
  });

  it("when the query is O'Brien, e-mail, C++ or über, then the chunk is found", async () => {
    for (const q of ["O'Brien", 'e-mail', 'C++', 'über']) {
      const { hits } = await searchCollection(schema.db, 'c-english', q, 5);
      expect(hits, q).to.have.length(1);
      expect(hits[0]!.source).to.deep.equal({ file: 'f.pdf', page: 1 });
    }
  });
});

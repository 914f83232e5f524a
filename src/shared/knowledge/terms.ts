/**
 * How a query's words are weighed against one collection generation (its `collection_terms`:
 * each word and how many chunks hold it):
 * - **Rare words count more**: a word's weight is BM25's inverse document frequency,
 *   `ln(1 + (N - n + 0.5) / (n + 0.5))` for a word held by n of N chunks, so in "how do I use
 *   vgextend to add a partition to a volume group?" the chunk holding `vgextend` outranks chunks
 *   holding `use`, `add` and `group`.
 * - **Common words do not pick candidates**: the chunks ranked beyond the all-words group are
 *   those holding one of the query's informative words (held by at most a tenth of the chunks),
 *   so a broad word's thousands of chunks do not crowd out the rare word's few; a query of only
 *   common words keeps them all.
 * - **Known words match whole**; a word the collection does not hold is matched as a prefix (as
 *   `worksh` finds `workshop`) and, where `pg_trgm` is installed, replaced by the collection's
 *   most similar word (trigram similarity at least {@link MIN_TYPO_SIMILARITY}): `quotta` finds
 *   `quota`.
 */
import type { Knex } from '../db.ts';

/** Share of the chunks a word may be held by and still pick candidates. */
export const INFORMATIVE_SHARE = 0.1;
/** Least trigram similarity of a correction to the word typed. */
export const MIN_TYPO_SIMILARITY = 0.5;
/** Shortest word corrected (shorter ones have too few trigrams to judge). */
const MIN_TYPO_CHARS = 4;

export interface PlannedTerm {
  /** The word as matched: the query's, or the collection's correction of it. */
  term: string;
  /** Matched as a prefix (unknown to the collection and not corrected). */
  prefix: boolean;
  /** Its inverse document frequency in the generation. */
  idf: number;
  /** It picks candidates (see {@link INFORMATIVE_SHARE}). */
  informative: boolean;
}

interface TermRow {
  term: string;
  ndoc: number | null;
  stop: boolean;
  total: number;
}

const idfOf = (total: number, held: number): number =>
  Math.log(1 + (total - held + 0.5) / (held + 0.5));

/**
 * Where each database's `pg_trgm` lives (undefined: not installed), asked once per connection
 * pool: only a migration changes it. A failed look-up is asked again next time.
 */
const trigramSchemas = new WeakMap<Knex, Promise<string | undefined>>();

/** Whether trigram similarity (`pg_trgm`) can be used, and in which schema it lives. */
function trigramSchema(db: Knex): Promise<string | undefined> {
  let schema = trigramSchemas.get(db);
  if (!schema) {
    schema = db
      .raw<{ rows: { schema: string }[] }>(
        `select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
         where e.extname = 'pg_trgm'`,
      )
      .then(({ rows }) => rows[0]?.schema);
    schema.catch(() => trigramSchemas.delete(db));
    trigramSchemas.set(db, schema);
  }
  return schema;
}

/**
 * The query's words weighed against generation `generation` of collection `collectionId` (whose
 * text search configuration is `language`); stop words are left out.
 */
export async function planTerms(
  db: Knex,
  searched: { collection_id: string; generation: string | null; language: string },
  terms: readonly string[],
): Promise<PlannedTerm[]> {
  if (terms.length === 0 || searched.generation === null) {
    return terms.map((term) => ({ term, prefix: true, idf: 1, informative: true }));
  }
  const where = { collection: searched.collection_id, generation: searched.generation };
  const { rows }: { rows: TermRow[] } = await db.raw(
    // One index lookup per word (a scalar subquery), never a join over the collection's words.
    `select t.term, min(l.ndoc)::int as ndoc, count(l.lexeme) = 0 as stop,
            (select chunk_count from collections where id = :collection)::int as total
     from unnest(:terms::text[]) with ordinality t(term, ord)
       left join lateral (
         select x.lexeme,
                (select ct.ndoc from collection_terms ct where ct.collection_id = :collection
                   and ct.generation = :generation and ct.word = x.lexeme) as ndoc
         from unnest(to_tsvector(:language::regconfig, t.term)) x) l on true
     group by t.term, t.ord order by t.ord`,
    { ...where, terms: [...terms], language: searched.language },
  );
  const total = Math.max(1, rows[0]?.total ?? 1);
  const unknown = rows.filter(
    (row) =>
      !row.stop &&
      row.ndoc === null &&
      row.term.length >= MIN_TYPO_CHARS &&
      /\p{L}/u.test(row.term),
  );
  const corrections = new Map<string, { word: string; ndoc: number }>();
  const schema = unknown.length > 0 ? await trigramSchema(db) : undefined;
  if (schema) {
    const { rows: fixes } = await db.raw<{
      rows: { term: string; word: string | null; ndoc: number | null }[];
    }>(
      `select t.term, f.word, f.ndoc from unnest(:terms::text[]) t(term)
         left join lateral (
           -- The trigram index finds the similar words (of every collection); "+ 0" keeps the
           -- planner from walking this generation's words by the primary key instead.
           select ct.word, ct.ndoc from collection_terms ct
           where ct.collection_id + 0 = :collection and ct.generation + 0 = :generation
             and ct.word operator(${schema}.%) t.term
             and ${schema}.similarity(ct.word, t.term) >= :min
           order by ${schema}.similarity(ct.word, t.term) desc, ct.ndoc desc, ct.word limit 1) f on true`,
      {
        ...where,
        terms: unknown.map((row) => row.term),
        min: MIN_TYPO_SIMILARITY,
      },
    );
    for (const fix of fixes) {
      // A correction is a typo's fix, not another word: about as long as what was typed.
      if (fix.word !== null && Math.abs(fix.word.length - fix.term.length) <= 2) {
        corrections.set(fix.term, { word: fix.word, ndoc: fix.ndoc ?? 1 });
      }
    }
  }
  const planned = rows
    .filter((row) => !row.stop)
    .map((row): PlannedTerm => {
      const fix = corrections.get(row.term);
      if (fix)
        return {
          term: fix.word,
          prefix: false,
          idf: idfOf(total, fix.ndoc),
          informative: true,
        };
      const held = row.ndoc ?? 0;
      return {
        term: row.term,
        prefix: row.ndoc === null,
        idf: idfOf(total, held),
        informative: held <= Math.max(1, total * INFORMATIVE_SHARE),
      };
    });
  // A query whose known words are all common: they all pick candidates.
  if (!planned.some((t) => t.informative && !t.prefix))
    for (const t of planned) t.informative = true;
  return planned;
}

/**
 * Full-text search over a collection's active generation, used by the retriver and by
 * `GET /v2/collections/<name>/search`.
 *
 * The query's words are normalised by the collection's text search configuration (stemming, stop
 * words). Chunks holding every word, as whole words, rank first; when fewer than `k` do, chunks
 * holding any of the words as a prefix (`word:*`; numbers and words under 3 characters match
 * whole words only) fill the hits, those holding every word that way first. Within a group
 * `ts_rank_cd` orders, and a chunk holding the query as a phrase gets a bonus. Each group ranks at
 * most {@link RANKED_CANDIDATES} of its matching chunks: ranking reads every candidate's row, so a
 * common word matching half of a 100,000-chunk collection would otherwise cost half a second. One
 * SQL statement reads the collection's generation and its chunks, so a search sees the content
 * before a re-index or after it, never a mix (see docs/knowledge.md).
 *
 * The statement holds the query's tsqueries as constants in the collection's configuration (known
 * from a per-process cache, checked by the statement itself), so the planner sees how common the
 * words are: a common word is read by a sequential scan that stops at the candidate cap, a rare
 * one through the GIN index.
 */
import { BotwireError } from '../errors.ts';
import type { Knex } from '../db.ts';

export type HitSource =
  { file: string; page: number } | { file: string; sheet: string; rows: [number, number] };

export interface SearchHit {
  chunk_id: string;
  score: number;
  source: HitSource;
  text: string;
  /** The best fragments of the chunk, matches wrapped in `<mark>` and `</mark>`. */
  snippet: string;
}

export interface SearchResult {
  collection: string;
  /** The text search configuration the collection was indexed with. */
  language: string;
  hits: SearchHit[];
}

/** Most query words used; the rest of a long query is ignored. */
export const MAX_QUERY_TERMS = 32;
export const MAX_K = 50;
/**
 * Most matching chunks ranked per group (all terms, then any term). Beyond this many matches the
 * best `k` are chosen among the first ones the index returns (in storage order, so the earlier
 * files of a collection), not among all: a query that broad says little about which chunk is
 * best, and ranking them all costs a row read each (see docs/knowledge.md, "Search").
 */
export const RANKED_CANDIDATES = 1000;
export const MARK = { start: '<mark>', stop: '</mark>' } as const;

const words = new Intl.Segmenter(undefined, { granularity: 'word' });

/** The word-like segments of a query, at most {@link MAX_QUERY_TERMS}, each at most 64 characters. */
export function queryTerms(query: string): string[] {
  const terms: string[] = [];
  for (const segment of words.segment(query.normalize('NFKC'))) {
    if (!segment.isWordLike) continue;
    terms.push(segment.segment.slice(0, 64).toLowerCase());
    if (terms.length === MAX_QUERY_TERMS) break;
  }
  return terms;
}

/** Shortest term matched as a prefix (`word:*`); shorter ones must match a whole word. */
export const MIN_PREFIX_CHARS = 3;

/**
 * Whether a term is matched as a prefix: 3 or more characters and a letter among them. A number
 * or a one- or two-letter prefix would match thousands of distinct index entries (`1:*` is every
 * number starting with 1, `½` is the terms `1` and `2`), which is slow and finds nothing useful;
 * `12` should not find `1299` either.
 */
const isPrefix = (term: string): boolean => term.length >= MIN_PREFIX_CHARS && /\p{L}/u.test(term);

/** A tsquery source text joining the terms, each quoted (so no operator can be injected). */
function tsqueryText(
  terms: readonly string[],
  operator: '&' | '|',
  prefixes: 'prefixes' | 'whole words',
): string {
  return terms
    .map((term) => {
      const quoted = `'${term.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
      return prefixes === 'prefixes' && isPrefix(term) ? `${quoted}:*` : quoted;
    })
    .join(` ${operator} `);
}

const HEADLINE = `StartSel=${MARK.start}, StopSel=${MARK.stop}, MaxWords=30, MinWords=10, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "`;

// `searched` is the collection only when `:language` is its configuration: the tsqueries below are
// parsed in `:language`, and a collection re-indexed in another one since the caller looked is
// answered with its language and no hits (the caller searches again). The group queries take the
// tsqueries as constants, not from `q`, so the planner can estimate how many chunks match.
const SEARCH_SQL = `
with c as (
  select id, language, language::regconfig as cfg, active_generation as gen
  from collections where name = :name
), searched as (
  select id, gen from c where language = :language
), q as (
  select to_tsquery(c.cfg, :any) as any_q, to_tsquery(c.cfg, :all) as all_q,
         phraseto_tsquery(c.cfg, :phrase) as phrase_q
  from c
), whole as (
  select ch.id, 1 as grp,
         4 + ts_rank_cd(ch.tsv, q.any_q, 1) + case when ch.tsv @@ q.phrase_q then 1 else 0 end as score
  from (
    select ch.id, ch.tsv from chunks ch, searched s
    where ch.tsv @@ to_tsquery(:language::regconfig, :whole)
      and ch.collection_id = s.id and ch.generation = s.gen
    limit :candidates
  ) ch, q
  order by score desc, ch.id
  limit :k
), loose as (
  select ch.id, 2 as grp,
         ts_rank_cd(ch.tsv, q.any_q, 1) + case when ch.tsv @@ q.all_q then 2 else 0 end as score
  from (
    select ch.id, ch.tsv from chunks ch, searched s
    where (select count(*) from whole) < :k
      and ch.tsv @@ to_tsquery(:language::regconfig, :any)
      and ch.collection_id = s.id and ch.generation = s.gen
      and ch.id not in (select id from whole)
    limit :candidates
  ) ch, q
  order by score desc, ch.id
  limit :k
), top as (
  select * from whole union all select * from loose
  order by grp, score desc, id
  limit :k
)
select c.language, top.id, ch.file, ch.page, ch.sheet, ch.row_first, ch.row_last, ch.text,
       top.score, ts_headline(c.cfg, ch.text, q.any_q, :headline) as snippet
from c cross join q left join top on true left join chunks ch on ch.id = top.id
order by top.grp nulls last, top.score desc, top.id`;

interface Row {
  language: string;
  id: string | null;
  file: string;
  page: number | null;
  sheet: string | null;
  row_first: number | null;
  row_last: number | null;
  text: string;
  score: number;
  snippet: string;
}

function notFound(collection: string): BotwireError {
  return new BotwireError('BW_ERR_NOT_FOUND', `no collection named "${collection}"`, {
    details: { collection },
  });
}

/**
 * The text search configuration of each collection searched, per database handle: the statement
 * parses the query in it and checks it, so a stale entry costs one more statement, never a wrong
 * answer. Bounded: cleared when it holds {@link MAX_CACHED_LANGUAGES} collections.
 */
const languages = new WeakMap<Knex, Map<string, string>>();
const MAX_CACHED_LANGUAGES = 10_000;

/** The collection's configuration, read from the database on a miss; undefined if it does not exist. */
async function languageOf(db: Knex, collection: string): Promise<string | undefined> {
  let known = languages.get(db);
  if (!known) languages.set(db, (known = new Map<string, string>()));
  const cached = known.get(collection);
  if (cached !== undefined) return cached;
  const row = await db<{ name: string; language: string }>('collections')
    .where({ name: collection })
    .first('language');
  if (row) remember(db, collection, row.language);
  return row?.language;
}

function remember(db: Knex, collection: string, language: string): void {
  const known = languages.get(db);
  if (!known) return;
  if (known.size >= MAX_CACHED_LANGUAGES) known.clear();
  known.set(collection, language);
}

/**
 * The `k` best chunks of `collection` for `query`.
 * @param options.candidates - Most matching chunks ranked per group. @defaultValue {@link RANKED_CANDIDATES}
 * @throws BotwireError `BW_ERR_NOT_FOUND` when the collection does not exist.
 */
export async function searchCollection(
  db: Knex,
  collection: string,
  query: string,
  k: number,
  options: { candidates?: number } = {},
): Promise<SearchResult> {
  const terms = queryTerms(query);
  if (terms.length === 0) {
    const row = await db<{ name: string; language: string }>('collections')
      .where({ name: collection })
      .first('language');
    if (!row) throw notFound(collection);
    return { collection, language: row.language, hits: [] };
  }
  const cached = await languageOf(db, collection);
  if (cached === undefined) throw notFound(collection);
  const bindings = {
    name: collection,
    whole: tsqueryText(terms, '&', 'whole words'),
    all: tsqueryText(terms, '&', 'prefixes'),
    any: tsqueryText(terms, '|', 'prefixes'),
    phrase: terms.join(' '),
    k: Math.min(Math.max(1, Math.trunc(k)), MAX_K),
    candidates: Math.max(1, Math.trunc(options.candidates ?? RANKED_CANDIDATES)),
    headline: HEADLINE,
  };
  const search = async (language: string): Promise<Row[]> => {
    const { rows } = await db.raw<{ rows: Row[] }>(SEARCH_SQL, { ...bindings, language });
    if (rows[0] === undefined) languages.get(db)?.delete(collection);
    else if (rows[0].language !== language) remember(db, collection, rows[0].language);
    return rows;
  };
  let rows = await search(cached);
  // A collection re-indexed in another language since it was cached answers with its language
  // and no hits: it is searched again, once, in that language.
  if (rows[0] !== undefined && rows[0].language !== cached) rows = await search(rows[0].language);
  const first = rows[0];
  if (!first) throw notFound(collection);
  const hits = rows
    .filter((row) => row.id !== null)
    .map((row): SearchHit => ({
      chunk_id: String(row.id),
      score: Math.round(Number(row.score) * 10000) / 10000,
      source:
        row.sheet === null
          ? { file: row.file, page: row.page ?? 0 }
          : { file: row.file, sheet: row.sheet, rows: [row.row_first ?? 0, row.row_last ?? 0] },
      text: row.text,
      snippet: row.snippet,
    }));
  return { collection, language: first.language, hits };
}

/** A source as people read it: `manual.pdf, page 3`, `prices.xlsx, sheet Bikes, rows 2-9`. */
export function citeSource(source: HitSource): string {
  if ('page' in source) return `${source.file}, page ${source.page}`;
  const [first, last] = source.rows;
  const rows = first === last ? `row ${first}` : `rows ${first}-${last}`;
  return `${source.file}, sheet ${source.sheet}, ${rows}`;
}

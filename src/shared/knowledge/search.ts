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
 * SQL statement reads the collection's generation and its chunks, and the chunks found by meaning
 * are read from that same generation (whose chunks never change), so a search sees the content
 * before a re-index or after it, never a mix (see docs/knowledge.md).
 *
 * The statement holds the query's tsqueries, the collection's id and its searched generation as
 * constants (read first, or from a {@link CollectionCache}; checked by the statement itself), so
 * the planner sees how common the words are: a common word is read by a sequential scan that
 * stops at the candidate cap, a rare one through the GIN index.
 */
import { BotwireError } from '../errors.ts';
import type { Knex } from '../db.ts';
import type { Neighbour } from '../embeddings/vector-index.ts';
import { planTerms, type PlannedTerm } from './terms.ts';

export type HitSource =
  { file: string; page: number } | { file: string; sheet: string; rows: [number, number] };

export interface SearchHit {
  chunk_id: string;
  score: number;
  source: HitSource;
  text: string;
  /** The best fragments of the chunk, matches wrapped in `<mark>` and `</mark>`. */
  snippet: string;
  /** The words' rank score and 1-based rank, when words found it. */
  words_score?: number;
  words_rank?: number;
  /** Words found every word of the query in it, whole (stop words aside). */
  words_all?: boolean;
  /** Cosine similarity to the question and 1-based rank, when its vector was searched. */
  vector_score?: number;
  vector_rank?: number;
  /** 1-based rank after fusion (hybrid), or in its one list. */
  rank?: number;
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

/** A term of a tsquery source text, quoted (so no operator can be injected), `:*` for a prefix. */
const quoted = (term: string, prefix: boolean): string =>
  `'${term.replaceAll('\\', '\\\\').replaceAll("'", "''")}'${prefix && isPrefix(term) ? ':*' : ''}`;

/** A tsquery source text joining the terms, each quoted (so no operator can be injected). */
export function tsqueryText(
  terms: readonly string[],
  operator: '&' | '|',
  prefixes: 'prefixes' | 'whole words',
): string {
  return terms.map((term) => quoted(term, prefixes === 'prefixes')).join(` ${operator} `);
}

/** The statement's tsqueries and weights from the planned terms (see `terms.ts`). */
function plannedBindings(
  planned: readonly PlannedTerm[],
): Record<string, string | number | boolean> {
  const informative = planned.filter((t) => t.informative);
  return {
    whole: planned.map((t) => quoted(t.term, false)).join(' & '),
    all: planned.map((t) => quoted(t.term, t.prefix)).join(' & '),
    any: informative.map((t) => quoted(t.term, t.prefix)).join(' | '),
    any_all: planned.map((t) => quoted(t.term, t.prefix)).join(' | '),
    has_common: informative.length < planned.length,
    phrase: planned.map((t) => t.term).join(' '),
    weights: JSON.stringify(planned.map((t) => ({ q: quoted(t.term, t.prefix), idf: t.idf }))),
    idf_total: Math.max(
      1e-9,
      planned.reduce((sum, t) => sum + t.idf, 0),
    ),
  };
}

const HEADLINE = `StartSel=${MARK.start}, StopSel=${MARK.stop}, MaxWords=30, MinWords=10, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "`;

// The statement searches the generation `:generation` of collection `:collection_id`, parsing the
// query in `:language`: what the caller last saw of the collection. It checks them against the
// collection row in its own snapshot, and when the collection changed (re-indexed since), it
// answers with the row as it is now and no hits; the caller searches again with that. The groups
// take the collection, the generation and the tsqueries as constants, not from `c` or `q`, so the
// planner can estimate how many chunks each condition matches. The any-word group drops the
// whole-word hits after its capped scan, not inside it: inside, the hashed sub-plan tipped the
// planner from a scan that stops at the cap to a GIN bitmap of every match (docs/knowledge.md).
const SEARCH_SQL = `
with c as (
  select id, language, language::regconfig as cfg, active_generation as gen, vectors_model, min_similarity,
         id = :collection_id and language = :language
           and active_generation is not distinct from :generation::bigint as current
  from collections where name = :name
), q as (
  select to_tsquery(c.cfg, :any) as any_q, to_tsquery(c.cfg, :all) as all_q,
         phraseto_tsquery(c.cfg, :phrase) as phrase_q
  from c
), whole as (
  select ch.id, 1 as grp,
         4 + ts_rank_cd(ch.tsv, q.any_q, 1) + case when ch.tsv @@ q.phrase_q then 1 else 0 end as score
  from (
    select ch.id, ch.tsv from chunks ch
    where :words and (select current from c)
      and ch.collection_id = :collection_id and ch.generation = :generation::bigint
      and ch.tsv @@ to_tsquery(:language::regconfig, :whole)
    limit :candidates
  ) ch, q
  order by score desc, ch.id
  limit :k
), w as (
  select to_tsquery(:language::regconfig, x.q) as tq, x.idf
  from jsonb_to_recordset(:weights::jsonb) as x(q text, idf float8)
), rare as (
  -- Candidates: the chunks holding one of the informative words (src/shared/knowledge/terms.ts).
  select ch.id, ch.tsv from chunks ch
  where :words and (select current from c) and (select count(*) from whole) < :k
    and ch.collection_id = :collection_id and ch.generation = :generation::bigint
    and ch.tsv @@ to_tsquery(:language::regconfig, :any)
  limit :candidates
), common as (
  -- When they are too few, the chunks holding any word of the query.
  select ch.id, ch.tsv from chunks ch
  where :words and :has_common and (select current from c)
    and (select count(*) from whole) + (select count(*) from rare) < :k
    and ch.collection_id = :collection_id and ch.generation = :generation::bigint
    and ch.tsv @@ to_tsquery(:language::regconfig, :any_all)
  limit :candidates
), loose as (
  select ch.id, 2 as grp,
         case when ch.tsv @@ q.all_q then 2 else 0 end
           + coalesce((select sum(w.idf) from w where ch.tsv @@ w.tq), 0) / :idf_total
           + ts_rank_cd(ch.tsv, q.any_q, 1) / 100 as score
  from (
    select distinct on (id) id, tsv from (select * from rare union all select * from common) u
    order by id
  ) ch, q
  where ch.id not in (select id from whole)
  order by score desc, ch.id
  limit :k
), top as (
  select * from whole union all select * from loose
  order by grp, score desc, id
  limit :k
), picked as (
  select id from top
)
select c.id as collection_id, c.gen as generation, c.language, c.current, c.vectors_model,
       c.min_similarity,
       p.id, ch.file, ch.page, ch.sheet, ch.row_first, ch.row_last, ch.text, top.score, top.grp,
       case when :snippets then ts_headline(c.cfg, ch.text, q.any_q, :headline) else '' end
         as snippet
from c cross join q left join picked p on (select current from c)
  left join top on top.id = p.id
  left join chunks ch on ch.collection_id = :collection_id and ch.generation = :generation::bigint
    and ch.id = p.id
order by top.grp nulls last, top.score desc, p.id`;

interface Row {
  collection_id: string;
  generation: string | null;
  language: string;
  current: boolean;
  vectors_model: string | null;
  min_similarity: number | null;
  id: string | null;
  file: string;
  page: number | null;
  sheet: string | null;
  row_first: number | null;
  row_last: number | null;
  text: string;
  /** Null for a chunk found by its vector only. */
  score: number | null;
  grp: number | null;
  snippet: string;
}

function notFound(collection: string): BotwireError {
  return new BotwireError('BW_ERR_NOT_FOUND', `no collection named "${collection}"`, {
    details: { collection },
  });
}

/**
 * What a search must know of a collection before it asks: its id, searched generation, language
 * and the model of that generation's vectors (null: none).
 */
export interface Searched {
  collection_id: string;
  generation: string | null;
  language: string;
  vectors_model: string | null;
  /** The collection's relevance threshold; null: the deployment's. */
  min_similarity: number | null;
}

/**
 * What one process last saw of each collection it searched; pass one (made once, kept for the
 * process's life) to {@link searchCollection} to save a round trip per search. The statement
 * checks what it holds, so a stale entry costs one more statement, never a wrong answer. Bounded:
 * cleared when it holds `max` collections.
 */
export class CollectionCache {
  readonly #seen = new Map<string, Searched>();

  constructor(private readonly max = 10_000) {}

  get(collection: string): Searched | undefined {
    return this.#seen.get(collection);
  }

  set(collection: string, searched: Searched | undefined): void {
    if (searched === undefined) {
      this.#seen.delete(collection);
      return;
    }
    if (this.#seen.size >= this.max) this.#seen.clear();
    this.#seen.set(collection, searched);
  }
}

/** The collection as last seen, read from the database when not cached; undefined if it does not exist. */
export async function collectionOf(
  db: Knex,
  collection: string,
  cache: CollectionCache | undefined,
): Promise<Searched | undefined> {
  const cached = cache?.get(collection);
  if (cached) return cached;
  const row:
    | {
        id: string;
        active_generation: string | null;
        language: string;
        vectors_model: string | null;
        min_similarity: number | null;
      }
    | undefined = await db('collections')
    .where({ name: collection })
    .first('id', 'active_generation', 'language', 'vectors_model', 'min_similarity');
  const searched = row && {
    collection_id: String(row.id),
    generation: row.active_generation === null ? null : String(row.active_generation),
    language: row.language,
    vectors_model: row.vectors_model,
    min_similarity: row.min_similarity === null ? null : Number(row.min_similarity),
  };
  cache?.set(collection, searched);
  return searched;
}

/** Searches in a row when the collection keeps changing under the search (re-indexed each time). */
const MAX_ATTEMPTS = 5;

/**
 * Finds the nearest chunks by meaning in the generation a search reads (`searched`); undefined
 * when that generation is gone (a newer swap deleted it), so the search reads the collection again.
 */
export type Nearest = (searched: Searched) => Promise<Neighbour[] | undefined>;

/** What {@link searchCollection} found: the words' hits, and the vectors' hits when asked. */
export interface SearchResult {
  collection: string;
  /** The text search configuration the collection was indexed with. */
  language: string;
  /** Found by words, best first (at most `k`): the whole-word group, then the any-word group. */
  hits: SearchHit[];
  /** Found by meaning, nearest first, with `vector_score`; empty when `nearest` was not given. */
  vectorHits: SearchHit[];
  /** The collection as searched. */
  searched: Searched;
}

const sourceOf = (row: Row): HitSource =>
  row.sheet === null
    ? { file: row.file, page: row.page ?? 0 }
    : { file: row.file, sheet: row.sheet, rows: [row.row_first ?? 0, row.row_last ?? 0] };

const round = (value: number): number => Math.round(value * 10000) / 10000;

/**
 * The `k` best chunks of `collection` for `query` by words and, with `options.nearest`, the
 * chunks it finds by meaning, from the same generation: the words' statement runs while the
 * neighbours are found, then the neighbours' rows the words did not find are read from the
 * generation the statement checked (gone since: the search reads the collection again).
 * @param options.candidates - Most matching chunks ranked per group. @defaultValue {@link RANKED_CANDIDATES}
 * @param options.cache - What this process last saw of the collections searched; without one, each
 *   search reads the collection row first.
 * @param options.words - Search by words; false finds by meaning only. @defaultValue true
 * @param options.nearest - The chunks nearest by meaning, asked for in each attempt.
 * @param options.snippets - Make each hit's snippet (`ts_headline`, the costliest part of a row);
 *   false leaves them empty for {@link addSnippets} to make for the hits kept. @defaultValue true
 * @throws BotwireError `BW_ERR_NOT_FOUND` when the collection does not exist;
 *   `BW_ERR_UNAVAILABLE` when it was re-indexed under each of {@link MAX_ATTEMPTS} searches.
 */
export async function searchCollection(
  db: Knex,
  collection: string,
  query: string,
  k: number,
  options: {
    candidates?: number;
    cache?: CollectionCache;
    words?: boolean;
    nearest?: Nearest;
    snippets?: boolean;
  } = {},
): Promise<SearchResult> {
  const terms = queryTerms(query);
  const { cache, nearest } = options;
  const words = options.words !== false && terms.length > 0;
  // A query without words reads the collection as it is now: nothing is searched to check it by.
  let searched: Searched | undefined = await collectionOf(
    db,
    collection,
    terms.length === 0 ? undefined : cache,
  );
  if (searched === undefined) throw notFound(collection);
  const empty = (at: Searched): SearchResult => ({
    collection,
    language: at.language,
    hits: [],
    vectorHits: [],
    searched: at,
  });
  if (query.trim() === '' || (terms.length === 0 && !nearest)) return empty(searched);
  const hits = Math.min(Math.max(1, Math.trunc(k)), MAX_K);
  const fixed = {
    name: collection,
    k: hits,
    // At least k: the any-word group drops up to k - 1 whole-word hits from its candidates.
    candidates: Math.max(hits, Math.trunc(options.candidates ?? RANKED_CANDIDATES)),
    headline: HEADLINE,
  };
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
    // The neighbours are found (the question embedded, the vectors scanned) while Postgres
    // searches by words: neither waits for the other. Both read generation `searched.generation`,
    // whose chunks never change, so their union is one generation's.
    const finding: Promise<Neighbour[] | undefined> =
      nearest && searched.generation !== null ? nearest(searched) : Promise.resolve([]);
    // Awaited below; this keeps a failure from being reported unhandled when the words' statement
    // finds the collection changed and the attempt ends first.
    finding.catch(() => undefined);
    const planned: PlannedTerm[] = words ? await planTerms(db, searched, terms) : [];
    const bindings: Record<string, unknown> = {
      ...fixed,
      ...plannedBindings(planned),
      words: planned.length > 0,
      snippets: options.snippets !== false,
    };
    const { rows }: { rows: Row[] } = await db.raw(SEARCH_SQL, {
      ...bindings,
      ...searched,
    });
    const first: Row | undefined = rows[0];
    if (!first) {
      cache?.set(collection, undefined);
      throw notFound(collection);
    }
    if (!first.current) {
      // Re-indexed since it was last seen: search again as it is now.
      searched = {
        collection_id: String(first.collection_id),
        generation: first.generation === null ? null : String(first.generation),
        language: first.language,
        vectors_model: first.vectors_model,
        min_similarity: first.min_similarity === null ? null : Number(first.min_similarity),
      };
      cache?.set(collection, searched);
      continue;
    }
    const neighbours = await finding;
    const byId = new Map<string, Row>();
    for (const row of rows) if (row.id !== null && row.file !== null) byId.set(String(row.id), row);
    const found = neighbours && (await neighbourRows(db, searched, neighbours, byId, first));
    if (!found) {
      // The generation searched is gone (a newer swap deleted it): read the collection as it is now.
      cache?.set(collection, undefined);
      searched = await collectionOf(db, collection, undefined);
      if (searched === undefined) throw notFound(collection);
      cache?.set(collection, searched);
      continue;
    }
    const hitOf = (row: Row): SearchHit => ({
      chunk_id: String(row.id),
      score: row.score === null ? 0 : round(Number(row.score)),
      source: sourceOf(row),
      text: row.text,
      snippet: row.snippet,
    });
    const wordHits = rows
      .filter((row) => row.grp !== null && row.file !== null)
      .map((row, i): SearchHit => ({
        ...hitOf(row),
        words_score: round(Number(row.score)),
        words_rank: i + 1,
        words_all: row.grp === 1,
      }));
    const vectorHits = neighbours.flatMap((neighbour, i): SearchHit[] => {
      const row = byId.get(String(neighbour.id));
      return row
        ? [
            {
              ...hitOf(row),
              score: neighbour.score,
              vector_score: neighbour.score,
              vector_rank: i + 1,
            },
          ]
        : [];
    });
    return { collection, language: first.language, hits: wordHits, vectorHits, searched };
  }
  throw new BotwireError(
    'BW_ERR_UNAVAILABLE',
    `collection "${collection}" was re-indexed during each of ${MAX_ATTEMPTS} searches; try again`,
    { details: { collection } },
  );
}

/**
 * Adds to `byId` the rows of the neighbours the words did not find, from the generation searched
 * (`first` gives the collection's columns); false when one is missing: the generation is gone.
 */
async function neighbourRows(
  db: Knex,
  searched: Searched,
  neighbours: readonly Neighbour[],
  byId: Map<string, Row>,
  first: Row,
): Promise<boolean> {
  const ids = neighbours.map((n) => String(n.id)).filter((id) => !byId.has(id));
  if (ids.length === 0) return true;
  const rows: Row[] = await db('chunks')
    .where({ collection_id: searched.collection_id, generation: searched.generation })
    .whereIn('id', ids)
    .select('id', 'file', 'page', 'sheet', 'row_first', 'row_last', 'text');
  for (const row of rows)
    byId.set(String(row.id), { ...first, ...row, score: null, grp: null, snippet: '' });
  return rows.length === ids.length;
}

/**
 * Fills the snippets of `hits` (found with `snippets: false`) in one statement. The rows are
 * read by id, which never changes; a hit whose row is gone since (its generation replaced and
 * deleted) keeps an empty snippet, its text still shown.
 */
export async function addSnippets(
  db: Knex,
  searched: Searched,
  query: string,
  hits: SearchHit[],
): Promise<SearchHit[]> {
  if (hits.length === 0) return hits;
  const { rows } = await db.raw<{ rows: { id: string; snippet: string }[] }>(
    `select ch.id, ts_headline(:language::regconfig, ch.text,
              to_tsquery(:language::regconfig, :any), :headline) as snippet
     from chunks ch where ch.collection_id = :collection_id and ch.id = any(:ids::bigint[])`,
    {
      language: searched.language,
      any: tsqueryText(queryTerms(query), '|', 'prefixes') || "''",
      headline: HEADLINE,
      collection_id: searched.collection_id,
      ids: hits.map((hit) => hit.chunk_id),
    },
  );
  const snippets = new Map(rows.map((row) => [String(row.id), row.snippet]));
  return hits.map((hit) => ({ ...hit, snippet: snippets.get(hit.chunk_id) ?? hit.snippet }));
}

/** A source as people read it: `manual.pdf, page 3`, `prices.xlsx, sheet Bikes, rows 2-9`. */
export function citeSource(source: HitSource): string {
  if ('page' in source) return `${source.file}, page ${source.page}`;
  const [first, last] = source.rows;
  const rows = first === last ? `row ${first}` : `rows ${first}-${last}`;
  return `${source.file}, sheet ${source.sheet}, ${rows}`;
}

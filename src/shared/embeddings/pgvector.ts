/**
 * Nearest chunks found inside Postgres, where the database has pgvector (0.5 or later: HNSW).
 * Migration `20261201040000_pgvector` creates the extension where it can and gives
 * `chunk_vectors` a `pgv` column: each vector also as pgvector's type, written beside the bytes
 * the in-memory index reads. Vectors of one dimension count share one HNSW index (cosine),
 * `chunk_vectors_pgv_<dims>`, partial on `dims` and built on `pgv::vector(<dims>)`, made when
 * vectors of that count are first stored (docs/knowledge.md, "The vector index").
 *
 * A search reads one generation, as the in-memory index does: up to {@link PG_EXACT_LIMIT}
 * chunks every vector of the generation is compared (exact); above it the HNSW index gives the
 * collection's nearest vectors and those of the generation are kept, falling back to the exact
 * search when the index gave fewer than were asked for. The extension's names are qualified by
 * its schema, so a connection whose `search_path` leaves it out still finds them.
 */
import type { Knex } from '../db.ts';
import type { IndexKey } from './vector-cache.ts';
import type { Neighbour } from './vector-index.ts';

/** Chunks of a generation compared exhaustively; larger generations are searched by HNSW. */
export const PG_EXACT_LIMIT = 20_000;
/** pgvector indexes `vector` of at most this many dimensions; more are searched in memory. */
export const HNSW_MAX_DIMS = 2000;
/** Nearest vectors asked of the index per neighbour wanted (some may be of another generation). */
const HNSW_OVERFETCH = 2;
/** Candidates HNSW keeps while it walks its graph (`hnsw.ef_search`), at least. */
export const EF_SEARCH = 200;

export interface Pgvector {
  /** The schema the extension's type and operators live in, quoted for SQL. */
  schema: string;
  /** `extversion`, e.g. `0.8.1`. */
  version: string;
  /** 0.8 and later continue an index scan until enough rows pass the filter (`hnsw.iterative_scan`). */
  iterative: boolean;
}

const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** pgvector's version as [major, minor]. */
function versionOf(text: string): [number, number] {
  const [major = 0, minor = 0] = text.split('.').map(Number);
  return [major, minor];
}

/** Whether `version` has HNSW (0.5.0 and later). */
export function hasHnsw(version: string): boolean {
  const [major, minor] = versionOf(version);
  return major > 0 || minor >= 5;
}

/**
 * pgvector as this database has it: the extension installed (0.5 or later) and `chunk_vectors`
 * given its `pgv` column by the migration; undefined otherwise (the in-memory index serves).
 */
export async function detectPgvector(db: Knex): Promise<Pgvector | undefined> {
  const { rows } = await db.raw<{ rows: { schema: string; version: string; column: boolean }[] }>(
    `select n.nspname as schema, e.extversion as version,
            exists (select 1 from information_schema.columns
                    where table_schema = current_schema() and table_name = 'chunk_vectors'
                      and column_name = 'pgv') as column
     from pg_extension e join pg_namespace n on n.oid = e.extnamespace
     where e.extname = 'vector'`,
  );
  const found = rows[0];
  if (!found?.column || !hasHnsw(found.version)) return undefined;
  const [major, minor] = versionOf(found.version);
  return {
    schema: quoted(found.schema),
    version: found.version,
    iterative: major > 0 || minor >= 8,
  };
}

/** A vector as pgvector's text input, `[0.1,-0.2,...]`. */
export function vectorText(vector: Float32Array): string {
  return `[${Array.from(vector).join(',')}]`;
}

/** The `pgv` of a `chunk_vectors` row to insert: nothing without pgvector. */
export function pgvColumn(
  db: Knex,
  pgv: Pgvector | undefined,
  vector: Float32Array,
): { pgv?: Knex.Raw } {
  return pgv ? { pgv: db.raw(`?::${pgv.schema}.vector`, [vectorText(vector)]) } : {};
}

/** The HNSW index of vectors of `dims` dimensions. */
export const hnswIndexName = (dims: number): string => `chunk_vectors_pgv_${dims}`;

/** The dimension counts whose index each pool has made or found, so it is asked once. */
const ensured = new WeakMap<Knex, Set<number>>();

/**
 * Makes the HNSW index of `dims`-dimension vectors unless it exists; one session at a time (an
 * advisory lock), since two `create index if not exists` of one name at once may both try. It
 * locks `chunk_vectors` against writes while it builds: it is made before the first vectors of
 * that count are stored, so it indexes few rows.
 */
export async function ensureHnswIndex(db: Knex, pgv: Pgvector, dims: number): Promise<void> {
  if (dims > HNSW_MAX_DIMS) return;
  const made = ensured.get(db) ?? new Set<number>();
  ensured.set(db, made);
  if (made.has(dims)) return;
  await db.transaction(async (trx) => {
    await trx.raw(`select pg_advisory_xact_lock(hashtext('botwire:chunk_vectors_pgv'))`);
    await trx.raw(
      `create index if not exists ${hnswIndexName(dims)} on chunk_vectors
         using hnsw ((pgv::${pgv.schema}.vector(${dims})) ${pgv.schema}.vector_cosine_ops)
         where dims = ${dims}`,
    );
  });
  made.add(dims);
}

/** How a {@link PgvectorIndex} searches; the defaults are the measured ones. */
export interface PgvectorTuning {
  exactLimit?: number;
  efSearch?: number;
}

/** The nearest chunks of one generation, searched in Postgres (see the module's comment). */
export class PgvectorIndex {
  /** Chunks per generation: a generation's chunks never change once it is searchable. */
  readonly #sizes = new Map<string, number>();

  readonly #exactLimit: number;
  readonly #efSearch: number;

  /**
   * @param tuning.exactLimit - Chunks of a generation compared exhaustively. @defaultValue {@link PG_EXACT_LIMIT}
   * @param tuning.efSearch - `hnsw.ef_search`, at least. @defaultValue {@link EF_SEARCH}
   */
  constructor(
    private readonly db: Knex,
    private readonly pgv: Pgvector,
    tuning: PgvectorTuning = {},
  ) {
    this.#exactLimit = tuning.exactLimit ?? PG_EXACT_LIMIT;
    this.#efSearch = tuning.efSearch ?? EF_SEARCH;
  }

  /**
   * The `n` chunks of the generation nearest to the unit vector `query`, best first; undefined
   * when the generation has no chunk left (a newer swap deleted it: the caller reads the
   * collection again).
   */
  async nearest(key: IndexKey, query: Float32Array, n: number): Promise<Neighbour[] | undefined> {
    const size = await this.#size(key);
    if (size === 0) return undefined;
    if (n <= 0) return [];
    const wanted = Math.min(n, size);
    if (size > this.#exactLimit && query.length <= HNSW_MAX_DIMS) {
      const found = await this.#byIndex(key, query, n);
      if (found.length >= wanted) return found;
    }
    const found = await this.#exact(key, query, n);
    // None at all: the generation went since its size was counted.
    return found.length === 0 ? undefined : found;
  }

  async #size(key: IndexKey): Promise<number> {
    const id = `${key.collectionId}:${key.generation}`;
    const known = this.#sizes.get(id);
    if (known !== undefined) return known;
    const { rows } = await this.db.raw<{ rows: { chunks: number }[] }>(
      `select count(*)::int as chunks from chunks where collection_id = ? and generation = ?`,
      [key.collectionId, key.generation],
    );
    const chunks = rows[0]?.chunks ?? 0;
    if (chunks > 0) {
      // Bounded: a process that searched many generations keeps the newest thousand sizes.
      if (this.#sizes.size >= 1000) this.#sizes.delete(this.#sizes.keys().next().value!);
      this.#sizes.set(id, chunks);
    }
    return chunks;
  }

  /** Every chunk of the generation compared (the expression matches no index: a sort of them). */
  async #exact(key: IndexKey, query: Float32Array, n: number): Promise<Neighbour[]> {
    const op = `operator(${this.pgv.schema}.<=>)`;
    const { rows } = await this.db.raw<{ rows: { id: string; distance: number }[] }>(
      `select ch.id, v.pgv ${op} ?::${this.pgv.schema}.vector as distance
       from chunks ch
       join chunk_vectors v on v.collection_id = ch.collection_id and v.model = ?
                            and v.text_sha = ch.text_sha
       where ch.collection_id = ? and ch.generation = ?
       order by distance, ch.id
       limit ?`,
      [vectorText(query), key.model, key.collectionId, key.generation, n],
    );
    return rows.map(neighbourOf);
  }

  /**
   * The collection's nearest vectors of the model by the HNSW index, then the generation's chunks
   * that hold them. Vectors of another generation (a running re-index, texts not yet cleaned up)
   * are among them, so twice as many are asked for; too few left is the caller's to notice.
   */
  async #byIndex(key: IndexKey, query: Float32Array, n: number): Promise<Neighbour[]> {
    const { schema, iterative } = this.pgv;
    const dims = query.length;
    const typed = `${schema}.vector(${dims})`;
    const limit = n * HNSW_OVERFETCH;
    return this.db.transaction(async (trx) => {
      await trx.raw(`select set_config('hnsw.ef_search', ?, true)`, [
        String(Math.min(1000, Math.max(this.#efSearch, limit))),
      ]);
      // Without it (before 0.8) the filter on the collection applies to ef_search candidates only.
      if (iterative)
        await trx.raw(`select set_config('hnsw.iterative_scan', 'relaxed_order', true)`);
      const { rows } = await trx.raw<{ rows: { id: string; distance: number }[] }>(
        `with near as materialized (
           select v.text_sha, v.pgv::${typed} operator(${schema}.<=>) ?::${typed} as distance
           from chunk_vectors v
           where v.collection_id = ? and v.model = ? and v.dims = ${dims}
           order by v.pgv::${typed} operator(${schema}.<=>) ?::${typed}
           limit ?)
         select ch.id, near.distance
         from near join chunks ch on ch.collection_id = ? and ch.text_sha = near.text_sha
         where ch.generation = ?
         order by near.distance, ch.id
         limit ?`,
        [
          vectorText(query),
          key.collectionId,
          key.model,
          vectorText(query),
          limit,
          key.collectionId,
          key.generation,
          n,
        ],
      );
      return rows.map(neighbourOf);
    });
  }
}

/** A row's cosine distance as the similarity the in-memory index reports. */
function neighbourOf(row: { id: string; distance: number }): Neighbour {
  return { id: Number(row.id), score: Math.round((1 - Number(row.distance)) * 10000) / 10000 };
}

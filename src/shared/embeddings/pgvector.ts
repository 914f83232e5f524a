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
import { vectorFromBytes } from './vectors.ts';

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
 * Makes the HNSW index of `dims`-dimension vectors unless it exists. Building it takes a SHARE
 * lock on `chunk_vectors` (vector writes of every collection wait) and reads the whole table, once
 * per dimension count in the database's life; one session builds it at a time (an advisory lock:
 * two `create index if not exists` of one name at once may both try). An index that exists is
 * seen without a lock.
 */
export async function ensureHnswIndex(db: Knex, pgv: Pgvector, dims: number): Promise<void> {
  if (dims > HNSW_MAX_DIMS) return;
  const made = ensured.get(db) ?? new Set<number>();
  ensured.set(db, made);
  if (made.has(dims)) return;
  const exists = async (trx: Knex | Knex.Transaction): Promise<boolean> => {
    const { rows } = await trx.raw<{ rows: { found: string | null }[] }>(
      `select to_regclass(?) as found`,
      [hnswIndexName(dims)],
    );
    return rows[0]?.found != null;
  };
  if (!(await exists(db))) {
    await db.transaction(async (trx) => {
      await trx.raw(`select pg_advisory_xact_lock(hashtext('botwire:chunk_vectors_pgv'))`);
      if (await exists(trx)) return;
      await trx.raw(
        `create index ${hnswIndexName(dims)} on chunk_vectors
           using hnsw ((pgv::${pgv.schema}.vector(${dims})) ${pgv.schema}.vector_cosine_ops)
           where dims = ${dims}`,
      );
    });
  }
  made.add(dims);
}

/** Rows of `chunk_vectors` given their `pgv` per statement by {@link fillMissingPgv}. */
const FILL_BATCH = 1000;

/**
 * Gives the collection's vectors that lack it their `pgv`, from their stored bytes: vectors an
 * indexer stored while it did not know of pgvector yet (it looks once per process), or before the
 * migration. Until then the generations holding them are searched in memory.
 */
export async function fillMissingPgv(
  db: Knex,
  pgv: Pgvector,
  collectionId: string,
): Promise<number> {
  let filled = 0;
  let after: [string, Buffer] = ['', Buffer.alloc(0)];
  for (;;) {
    const { rows } = await db.raw<{
      rows: { model: string; text_sha: Buffer; embedding: Buffer }[];
    }>(
      `select model, text_sha, embedding from chunk_vectors
       where collection_id = ? and pgv is null and (model, text_sha) > (?, ?)
       order by model, text_sha limit ${FILL_BATCH}`,
      [collectionId, ...after],
    );
    if (rows.length === 0) return filled;
    await db.raw(
      `update chunk_vectors v set pgv = u.pgv::${pgv.schema}.vector
       from unnest(?::text[], ?::bytea[], ?::text[]) as u(model, text_sha, pgv)
       where v.collection_id = ? and v.model = u.model and v.text_sha = u.text_sha and v.pgv is null`,
      [
        rows.map((r) => r.model),
        rows.map((r) => r.text_sha),
        rows.map((r) => vectorText(vectorFromBytes(r.embedding))),
        collectionId,
      ],
    );
    filled += rows.length;
    const last = rows.at(-1)!;
    after = [last.model, last.text_sha];
  }
}

/** How a {@link PgvectorIndex} searches; the defaults are the measured ones. */
export interface PgvectorTuning {
  exactLimit?: number;
  efSearch?: number;
}

interface GenerationSize {
  chunks: number;
  vectors: number;
  indexed: number;
}

/** The nearest chunks of one generation, searched in Postgres (see the module's comment). */
export class PgvectorIndex {
  /** Per generation and model: a generation's chunks never change once it is searchable. */
  readonly #sizes = new Map<string, GenerationSize>();

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
   * Whether every vector of the generation has its `pgv` (see {@link fillMissingPgv}); a
   * generation that has not is searched in memory. True for a generation that is gone.
   */
  async covers(key: IndexKey): Promise<boolean> {
    const size = await this.#size(key);
    return size.indexed === size.vectors;
  }

  /**
   * The `n` chunks of the generation nearest to the unit vector `query`, best first; undefined
   * when the generation has no chunk left (a newer swap deleted it: the caller reads the
   * collection again). Only vectors with their `pgv` are compared ({@link covers}).
   */
  async nearest(key: IndexKey, query: Float32Array, n: number): Promise<Neighbour[] | undefined> {
    const size = await this.#size(key);
    if (size.chunks === 0) return undefined;
    if (n <= 0) return [];
    const wanted = Math.min(n, size.indexed);
    if (size.indexed > this.#exactLimit && query.length <= HNSW_MAX_DIMS) {
      const found = await this.#byIndex(key, query, n);
      if (found.length >= wanted) return found;
    }
    const found = await this.#exact(key, query, n);
    // None at all where some were: the generation went since it was counted.
    return found.length === 0 && wanted > 0 ? undefined : found;
  }

  /**
   * The generation's chunks, those with a vector of the model and those whose vector has its
   * `pgv`; kept once the generation is seen with chunks (they never change then; a vector's
   * `pgv` filled in later only leaves that generation in memory).
   */
  async #size(key: IndexKey): Promise<GenerationSize> {
    const id = `${key.collectionId}:${key.generation}:${key.model}`;
    const known = this.#sizes.get(id);
    if (known !== undefined) return known;
    const { rows } = await this.db.raw<{ rows: GenerationSize[] }>(
      `select count(*)::int as chunks, count(v.text_sha)::int as vectors,
              count(v.pgv)::int as indexed
       from chunks ch
       left join chunk_vectors v on v.collection_id = ch.collection_id and v.model = ?
                                 and v.text_sha = ch.text_sha
       where ch.collection_id = ? and ch.generation = ?`,
      [key.model, key.collectionId, key.generation],
    );
    const size = rows[0] ?? { chunks: 0, vectors: 0, indexed: 0 };
    if (size.chunks > 0) {
      // Bounded: a process that searched many generations keeps the newest thousand.
      if (this.#sizes.size >= 1000) this.#sizes.delete(this.#sizes.keys().next().value!);
      this.#sizes.set(id, size);
    }
    return size;
  }

  /** Every chunk of the generation compared (the expression matches no index: a sort of them). */
  async #exact(key: IndexKey, query: Float32Array, n: number): Promise<Neighbour[]> {
    const op = `operator(${this.pgv.schema}.<=>)`;
    const { rows } = await this.db.raw<{ rows: { id: string; distance: number }[] }>(
      `select ch.id, v.pgv ${op} ?::${this.pgv.schema}.vector as distance
       from chunks ch
       join chunk_vectors v on v.collection_id = ch.collection_id and v.model = ?
                            and v.text_sha = ch.text_sha
       where ch.collection_id = ? and ch.generation = ? and v.pgv is not null
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
           where v.collection_id = ? and v.model = ? and v.dims = ${dims} and v.pgv is not null
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

/**
 * Where a process finds the chunks nearest to a question: in Postgres with pgvector when the
 * database has it (`pgvector.ts`), else in the vector indexes it loads into memory
 * (`vector-cache.ts`). `VECTOR_INDEX=memory` keeps the in-memory index even where pgvector is
 * (docs/knowledge.md, "The vector index").
 */
import type { Knex } from '../db.ts';
import {
  detectPgvector,
  HNSW_MAX_DIMS,
  PgvectorIndex,
  type Pgvector,
  type PgvectorTuning,
} from './pgvector.ts';
import { VectorIndexCache, type IndexKey } from './vector-cache.ts';
import type { Neighbour } from './vector-index.ts';

export type VectorIndexChoice = 'auto' | 'memory';

export interface NearestChunks {
  /**
   * The `n` chunks of the generation nearest to the unit vector `query`, best first; undefined
   * when the generation is gone (a newer swap: the caller reads the collection again).
   */
  nearest(key: IndexKey, query: Float32Array, n: number): Promise<Neighbour[] | undefined>;
  /** Which index served the last search: `pgvector` or `memory` (undefined before any). */
  readonly kind: 'pgvector' | 'memory' | undefined;
  /** Bytes of the vector indexes this process holds in memory (none with pgvector). */
  readonly bytes: number;
}

const found = new WeakMap<Knex, Promise<Pgvector | undefined>>();

/**
 * pgvector as the database behind `db` has it, asked once per pool (a failed look is asked
 * again). Processes restart on an upgrade, which is when a database gains it.
 */
export function pgvectorOf(db: Knex): Promise<Pgvector | undefined> {
  let looking = found.get(db);
  if (!looking) {
    looking = detectPgvector(db);
    found.set(db, looking);
    looking.catch(() => found.delete(db));
  }
  return looking;
}

export function createNearestChunks(
  db: Knex,
  options: { index: VectorIndexChoice; cacheBytes: number; pgvector?: PgvectorTuning },
): NearestChunks {
  const memory = new VectorIndexCache(db, options.cacheBytes);
  let inPostgres: Promise<PgvectorIndex | undefined> | undefined;
  let kind: NearestChunks['kind'];
  return {
    get kind() {
      return kind;
    },
    get bytes() {
      return memory.bytes;
    },
    async nearest(key, query, n) {
      if (options.index === 'auto' && query.length <= HNSW_MAX_DIMS) {
        inPostgres ??= pgvectorOf(db).then(
          (pgv) => pgv && new PgvectorIndex(db, pgv, options.pgvector),
          (error: unknown) => {
            inPostgres = undefined;
            throw error;
          },
        );
        const index = await inPostgres;
        // A generation with vectors stored without their pgv is searched in memory.
        if (index && (await index.covers(key))) {
          kind = 'pgvector';
          return index.nearest(key, query, n);
        }
      }
      kind = 'memory';
      return (await memory.get(key))?.search(query, n);
    },
  };
}

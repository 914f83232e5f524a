/**
 * The vector indexes one process holds, loaded from Postgres on first use and kept within a
 * memory budget (least recently used go first). An index is keyed by collection, generation and
 * model: it never goes stale, since a generation's chunks do not change once searchable; a
 * re-index makes a new generation, and the old one's index is dropped when its collection is next
 * searched (or pushed out by the budget).
 */
import type { Knex } from '../db.ts';
import { VectorIndex } from './vector-index.ts';
import { vectorFromBytes } from './vectors.ts';

/** Rows read per statement while loading an index. */
const LOAD_BATCH = 5000;

export interface IndexKey {
  collectionId: string;
  generation: string;
  model: string;
}

const keyOf = (key: IndexKey): string => `${key.collectionId}:${key.generation}:${key.model}`;

/**
 * Loads a generation's vectors of `model`: each chunk's vector is found by its text's hash
 * (`chunks.text_sha`, `chunk_vectors`), a batch of chunk ids at a time. Returns undefined when the
 * generation has no chunk left (deleted by a newer swap: the caller reads the collection again).
 */
async function loadIndex(db: Knex, key: IndexKey): Promise<VectorIndex | undefined> {
  const counted = await db.raw<{ rows: { chunks: number; dims: number | null }[] }>(
    `select count(*)::int as chunks,
            (select dims from chunk_vectors where collection_id = :collection and model = :model limit 1) as dims
     from chunks where collection_id = :collection and generation = :generation`,
    { collection: key.collectionId, generation: key.generation, model: key.model },
  );
  const { chunks, dims } = counted.rows[0] ?? { chunks: 0, dims: null };
  if (chunks === 0) return undefined;
  const index = new VectorIndex(chunks, dims ?? 0);
  let after = 0;
  for (;;) {
    const { rows } = await db.raw<{ rows: { id: string; embedding: Buffer }[] }>(
      `select ch.id, v.embedding from chunks ch
         join chunk_vectors v on v.collection_id = ch.collection_id and v.model = :model
                              and v.text_sha = ch.text_sha
       where ch.collection_id = :collection and ch.generation = :generation and ch.id > :after
       order by ch.id limit :batch`,
      {
        ...{ collection: key.collectionId, generation: key.generation, model: key.model },
        after,
        batch: LOAD_BATCH,
      },
    );
    for (const row of rows) index.add(Number(row.id), vectorFromBytes(row.embedding));
    if (rows.length < LOAD_BATCH) break;
    after = Number(rows.at(-1)!.id);
  }
  return index;
}

export class VectorIndexCache {
  readonly #indexes = new Map<string, VectorIndex>();
  readonly #loading = new Map<string, Promise<VectorIndex | undefined>>();
  /** The newest generation each collection was loaded at: older ones are never loaded again. */
  readonly #newest = new Map<string, bigint>();
  readonly #budget: number;
  #bytes = 0;

  /** @param budgetBytes - Most bytes of indexes kept; one index larger than this is still served, then dropped. */
  constructor(
    private readonly db: Knex,
    budgetBytes: number,
  ) {
    this.#budget = budgetBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** The index of `key`, loaded once however many searches ask for it at the same time. */
  async get(key: IndexKey): Promise<VectorIndex | undefined> {
    // Generations are increasing job ids: a search that still sees an older one than this process
    // loaded is stale, and reads the collection again (undefined) rather than load it.
    if ((this.#newest.get(key.collectionId) ?? -1n) > BigInt(key.generation)) return undefined;
    const id = keyOf(key);
    const held = this.#indexes.get(id);
    if (held) {
      this.#indexes.delete(id); // re-inserted: most recently used last
      this.#indexes.set(id, held);
      return held;
    }
    let loading = this.#loading.get(id);
    if (!loading) {
      loading = loadIndex(this.db, key).finally(() => this.#loading.delete(id));
      this.#loading.set(id, loading);
      const index = await loading;
      if (index) this.#keep(key, id, index);
      return index;
    }
    return loading;
  }

  #keep(key: IndexKey, id: string, index: VectorIndex): void {
    // A load of an older generation that finished after a newer one's is served, not kept.
    const generation = BigInt(key.generation);
    if ((this.#newest.get(key.collectionId) ?? -1n) > generation) return;
    this.#newest.set(key.collectionId, generation);
    // Other generations of the collection are older: a search that saw the newer one came.
    for (const [other, held] of this.#indexes) {
      if (other.startsWith(`${key.collectionId}:`) && other !== id) this.#drop(other, held);
    }
    this.#indexes.set(id, index);
    this.#bytes += index.bytes;
    for (const [other, held] of this.#indexes) {
      if (this.#bytes <= this.#budget || other === id) break;
      this.#drop(other, held);
    }
  }

  #drop(id: string, index: VectorIndex): void {
    this.#indexes.delete(id);
    this.#bytes -= index.bytes;
  }
}

/**
 * Exact-enough nearest neighbours in memory, for Postgres without pgvector (the stock Debian 15
 * has none). One index holds one collection generation's vectors of one model, never changed
 * after it is built: a generation's chunks are fixed once it is searchable, so every process that
 * loads it holds the same index, and a re-index is a new generation and so a new index.
 *
 * Each vector is kept as int8 codes with one scale (its largest component / 127) and its sign
 * bits. Up to {@link EXACT_LIMIT} vectors every code is scored against the query; above it, the
 * sign bits (Hamming distance, 1/8 of a byte per dimension) pick the `max(OVERSAMPLE × n, 400)`
 * closest candidates and only those are scored. `bench/knowledge` measures recall against the
 * exact float search, memory and time (docs/knowledge.md, "Meaning").
 */

/** Vectors scored exhaustively; larger indexes are pre-filtered by sign bits. */
export const EXACT_LIMIT = 20_000;
/** Candidates kept by the sign-bit filter per neighbour asked for. */
export const OVERSAMPLE = 160;
const MIN_CANDIDATES = 400;

export interface Neighbour {
  /** The chunk's id. */
  id: number;
  /** Cosine similarity to the query (from the int8 codes: within about 0.01 of the exact one). */
  score: number;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

export class VectorIndex {
  readonly dims: number;
  readonly #ids: Float64Array;
  readonly #codes: Int8Array;
  readonly #scales: Float32Array;
  readonly #bits: Int32Array;
  readonly #words: number;
  #count = 0;

  constructor(capacity: number, dims: number) {
    this.dims = dims;
    this.#words = Math.ceil(dims / 32);
    this.#ids = new Float64Array(capacity);
    this.#codes = new Int8Array(capacity * dims);
    this.#scales = new Float32Array(capacity);
    this.#bits = new Int32Array(capacity * this.#words);
  }

  get size(): number {
    return this.#count;
  }

  /** Bytes held by the index's arrays. */
  get bytes(): number {
    return (
      this.#ids.byteLength +
      this.#codes.byteLength +
      this.#scales.byteLength +
      this.#bits.byteLength
    );
  }

  /** Adds a unit vector of `dims` values; false when full or of another length. */
  add(id: number, vector: Float32Array): boolean {
    if (vector.length !== this.dims || this.#count >= this.#ids.length) return false;
    const row = this.#count;
    let max = 0;
    for (const value of vector) max = Math.max(max, Math.abs(value));
    const scale = max > 0 ? max / 127 : 1;
    const base = row * this.dims;
    const bitsBase = row * this.#words;
    for (let i = 0; i < this.dims; i += 1) {
      const value = vector[i]!;
      this.#codes[base + i] = Math.round(value / scale);
      if (value > 0) this.#bits[bitsBase + (i >>> 5)]! |= 1 << (i & 31);
    }
    this.#ids[row] = id;
    this.#scales[row] = scale;
    this.#count += 1;
    return true;
  }

  #score(row: number, query: Float32Array): number {
    const codes = this.#codes;
    const base = row * this.dims;
    let a = 0;
    let b = 0;
    let i = 0;
    for (; i + 1 < this.dims; i += 2) {
      a += codes[base + i]! * query[i]!;
      b += codes[base + i + 1]! * query[i + 1]!;
    }
    if (i < this.dims) a += codes[base + i]! * query[i]!;
    return (a + b) * this.#scales[row]!;
  }

  /** Rows whose sign bits are closest to the query's, at least `wanted` of them. */
  #candidates(query: Float32Array, wanted: number): number[] {
    const words = this.#words;
    const queryBits = new Int32Array(words);
    for (let i = 0; i < this.dims; i += 1) if (query[i]! > 0) queryBits[i >>> 5]! |= 1 << (i & 31);
    const distances = new Uint16Array(this.#count);
    const histogram = new Uint32Array(this.dims + 1);
    for (let row = 0; row < this.#count; row += 1) {
      let distance = 0;
      const base = row * words;
      for (let w = 0; w < words; w += 1)
        distance += popcount(this.#bits[base + w]! ^ queryBits[w]!);
      distances[row] = distance;
      histogram[distance]! += 1;
    }
    // The smallest distance whose cumulative count reaches `wanted`: every row up to it is kept.
    let limit = 0;
    for (let total = 0; limit <= this.dims; limit += 1) {
      total += histogram[limit]!;
      if (total >= wanted) break;
    }
    const rows: number[] = [];
    for (let row = 0; row < this.#count; row += 1) if (distances[row]! <= limit) rows.push(row);
    return rows;
  }

  /** The `n` nearest vectors to the unit vector `query`, best first. */
  search(query: Float32Array, n: number): Neighbour[] {
    if (query.length !== this.dims || n <= 0 || this.#count === 0) return [];
    const rows =
      this.#count <= EXACT_LIMIT
        ? undefined
        : this.#candidates(query, Math.max(MIN_CANDIDATES, OVERSAMPLE * n));
    const best: Neighbour[] = [];
    const consider = (row: number): void => {
      const score = this.#score(row, query);
      if (best.length === n && score <= best[n - 1]!.score) return;
      let at = best.length;
      while (at > 0 && best[at - 1]!.score < score) at -= 1;
      best.splice(at, 0, { id: this.#ids[row]!, score });
      if (best.length > n) best.pop();
    };
    if (rows) for (const row of rows) consider(row);
    else for (let row = 0; row < this.#count; row += 1) consider(row);
    return best.map(({ id, score }) => ({ id, score: Math.round(score * 10000) / 10000 }));
  }
}

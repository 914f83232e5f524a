/**
 * Vectors as botwire keeps them: unit length (so a dot product is the cosine similarity), stored in
 * Postgres as little-endian float32 bytes, searched in memory as int8 with one scale per vector.
 */

/** `vector` scaled to unit length, in place; a zero vector stays zero. */
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i += 1) vector[i] = vector[i]! / norm;
  return vector;
}

/** The bytes Postgres stores (`bytea`): float32, little-endian. */
export function vectorBytes(vector: Float32Array): Buffer {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i += 1) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes;
}

/** A vector read back from {@link vectorBytes}. */
export function vectorFromBytes(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < vector.length; i += 1) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}

/** Dot product of two vectors of the same length: their cosine similarity when both are unit. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += a[i]! * b[i]!;
  return sum;
}

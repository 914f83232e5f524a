/**
 * Vectors that spread as a collection's do, for benches of the vector index at sizes no one can
 * embed here in reasonable time: each is three of the embedded model's own vectors (of real or
 * generated sentences) at random weights, plus a little noise, made unit length.
 */
import { normalize } from '../../src/shared/embeddings/vectors.ts';

/** A maker of mixtures of `bases`, drawing from `random` (a number in [0, 1)). */
export function mixtures(bases: readonly Float32Array[], random: () => number): () => Float32Array {
  const dims = bases[0]?.length ?? 0;
  return () => {
    const vector = new Float32Array(dims);
    for (let m = 0; m < 3; m += 1) {
      const base = bases[Math.floor(random() * bases.length)]!;
      const weight = random();
      for (let d = 0; d < dims; d += 1) vector[d]! += base[d]! * weight;
    }
    for (let d = 0; d < dims; d += 1) vector[d]! += (random() - 0.5) * 0.08;
    return normalize(vector);
  };
}

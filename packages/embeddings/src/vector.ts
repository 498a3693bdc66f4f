/** pgvector's text literal: `[0.1,0.2,...]`. */
export function toPgVector(v: Float32Array | number[]): string {
  const parts: string[] = new Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    if (!Number.isFinite(x)) throw new Error(`vector component ${i} is not a finite number`);
    parts[i] = String(x);
  }
  return `[${parts.join(',')}]`;
}

export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

export function l2Normalize(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

/** Mean of the vectors, normalised (the direction they share). */
export function centroid(vectors: ArrayLike<number>[]): Float32Array {
  const dims = vectors[0]?.length ?? 0;
  const sum = new Float32Array(dims);
  for (const v of vectors) for (let i = 0; i < dims; i++) sum[i]! += v[i]!;
  return l2Normalize(sum);
}

const finite = (x: number, i: number): number => {
  if (!Number.isFinite(x)) throw new Error(`vector component ${i} is not a finite number`);
  return x;
};

/** pgvector's text literal: `[0.1,0.2,...]`. */
export function toPgVector(v: Float32Array | number[]): string {
  const parts: string[] = new Array(v.length);
  for (let i = 0; i < v.length; i++) parts[i] = String(finite(v[i]!, i));
  return `[${parts.join(',')}]`;
}

/**
 * A vector as a statement parameter. node-postgres binds what toPostgres() returns, and a Buffer
 * goes in binary: pgvector's vector_recv format (the dimensions, a reserved word, then big-endian
 * float4s), 1.5 kB at 384 dimensions where the text literal is ~8 kB that the API formats and writes
 * and PostgreSQL parses number by number (0.3 ms less a query, in the client and the server).
 * PGlite binds every parameter as text: toString().
 */
export class VectorParam {
  constructor(readonly values: Float32Array) {}

  get dimensions(): number {
    return this.values.length;
  }

  toPostgres(): Buffer {
    const v = this.values;
    const out = Buffer.allocUnsafe(4 + 4 * v.length);
    out.writeUInt16BE(v.length, 0);
    out.writeUInt16BE(0, 2);
    for (let i = 0; i < v.length; i++) out.writeFloatBE(finite(v[i]!, i), 4 + 4 * i);
    return out;
  }

  toString(): string {
    return toPgVector(this.values);
  }
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

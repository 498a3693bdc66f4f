/**
 * The bare model: a generated BERT encoder of all-MiniLM-L6-v2's exact shape (random weights,
 * same compute per token; nothing is downloaded), loaded quantized or not as the service would,
 * and the cached bank of its vectors for bulk-loaded rows.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '@ams/core';
import { Embedder, TransformersEmbedder } from '@ams/embeddings';
import { ensureGeneratedModel } from '@ams/testing';
import { BENCH_CACHE_DIR } from './corpus';
import { percentiles, prng } from './support';

export interface BenchModel {
  embedder: TransformersEmbedder;
  /** Env for worker processes so they load the same model. */
  env: Record<string, string>;
  quantized: boolean;
  batchSize: number;
}

export async function loadBenchModel(): Promise<BenchModel> {
  const config = loadConfig();
  const generated = ensureGeneratedModel({ full: true });
  const embedder = new TransformersEmbedder({ ...generated, allowRemoteModels: false, quantized: config.embedding.quantized, thread: config.embedding.thread, intraOpThreads: config.embedding.intraOpThreads });
  await embedder.load();
  await embedder.embed(['warm up the session', 'and its second input shape']);
  return {
    embedder,
    env: { EMBEDDING_PROVIDER: 'transformers', MODEL_DIR: generated.modelDir, EMBEDDING_MODEL: generated.model },
    quantized: config.embedding.quantized,
    batchSize: config.embeddingWorker.batchSize,
  };
}

/** Per-text latency of embedding each text alone. */
export async function singleLatency(embedder: Embedder, texts: string[]): Promise<{ stats: ReturnType<typeof percentiles>; vectors: Float32Array[] }> {
  const samples: number[] = [];
  const vectors: Float32Array[] = [];
  for (const t of texts) {
    const t0 = performance.now();
    vectors.push((await embedder.embed([t]))[0]!);
    samples.push(performance.now() - t0);
  }
  return { stats: percentiles(samples), vectors };
}

/**
 * Texts per second embedding `texts` in batches of `size`, in the given order or sorted by length
 * first: the bare model, one call per batch as given (embedPadded, not the service's length buckets).
 */
export async function batchedRate(embedder: Embedder, texts: string[], size: number, order: 'naive' | 'sorted'): Promise<number> {
  const list = order === 'sorted' ? [...texts].sort((a, b) => a.length - b.length) : texts;
  const call = (batch: string[]) => (embedder instanceof TransformersEmbedder ? embedder.embedPadded(batch) : embedder.embed(batch));
  const t0 = performance.now();
  for (let i = 0; i < list.length; i += size) await call(list.slice(i, i + size));
  return list.length / ((performance.now() - t0) / 1000);
}

/**
 * Model vectors of the corpus' first documents, cached in .cache/bench and extended by each run
 * for up to `budgetSeconds` (length-sorted batches: the fastest way through the bare model). An
 * empty bank is always given its first MIN_BANKED vectors, whatever the budget: the jittered
 * vectors of the rest are copies of banked ones.
 */
export const MIN_BANKED = 256;

/** The key of a corpus' vector bank: its first documents' hash (the bank's file follows the corpus). */
export const corpusKey = (docs: string[]): string => crypto.createHash('sha1').update(docs.slice(0, 100).join('\n')).digest('hex').slice(0, 10);

export class VectorBank {
  private readonly file: string;
  private readonly cacheDir: string;
  private vectors: Float32Array[] = [];

  constructor(
    private readonly embedder: Pick<TransformersEmbedder, 'model' | 'embed'>,
    key: string,
    private readonly dims = 384,
    cacheDir = BENCH_CACHE_DIR,
  ) {
    this.cacheDir = cacheDir;
    this.file = path.join(cacheDir, `vectors-${embedder.model.replace(/\W+/g, '_')}-${key}.f32`);
    if (fs.existsSync(this.file)) {
      const buf = fs.readFileSync(this.file);
      const all = new Float32Array(buf.buffer, buf.byteOffset, Math.floor(buf.length / 4 / dims) * dims);
      for (let i = 0; i < all.length; i += dims) this.vectors.push(all.slice(i, i + dims));
    }
  }

  get size(): number {
    return this.vectors.length;
  }

  /** Embeds docs[size .. want) until done or the budget is spent (MIN_BANKED first in any case); returns how many were added. */
  async extend(docs: string[], want: number, budgetSeconds: number, batchSize: number): Promise<number> {
    const deadline = performance.now() + budgetSeconds * 1000;
    const floor = Math.min(want, docs.length, MIN_BANKED);
    const before = this.size;
    fs.mkdirSync(this.cacheDir, { recursive: true });
    while (this.size < want && (this.size < floor || performance.now() < deadline)) {
      const start = this.size;
      const chunk = docs.slice(start, Math.min(want, start + batchSize * 8)).map((text, i) => ({ text, i: start + i }));
      if (chunk.length === 0) break;
      chunk.sort((a, b) => a.text.length - b.text.length);
      const out = new Array<Float32Array>(chunk.length);
      for (let i = 0; i < chunk.length; i += batchSize) {
        const part = chunk.slice(i, i + batchSize);
        const vs = await this.embedder.embed(part.map((p) => p.text));
        part.forEach((p, j) => (out[p.i - start] = vs[j]!));
      }
      fs.appendFileSync(this.file, Buffer.concat(out.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength))));
      this.vectors.push(...out);
    }
    return this.size - before;
  }

  /**
   * Document i's vector: the model's when banked, else a jittered copy of a banked one (a nearby
   * unit vector: the bank's cluster structure at sizes the bare model cannot embed in a bench run).
   */
  vector(i: number): { vector: Float32Array; source: 'model' | 'jittered' } {
    if (i < this.size) return { vector: this.vectors[i]!, source: 'model' };
    if (this.size === 0) throw new Error('The vector bank is empty: extend() it first (it banks MIN_BANKED vectors whatever the budget)');
    const rand = prng(i + 1);
    const base = this.vectors[i % this.size]!;
    const v = new Float32Array(this.dims);
    let norm = 0;
    for (let d = 0; d < this.dims; d++) {
      // Sum of uniforms ≈ normal noise; 0.03 per dimension moves a unit vector by ~0.6 of its length.
      const noise = (rand() + rand() + rand() - 1.5) * 0.06;
      v[d] = base[d]! + noise;
      norm += v[d]! * v[d]!;
    }
    norm = Math.sqrt(norm);
    for (let d = 0; d < this.dims; d++) v[d] = v[d]! / norm;
    return { vector: v, source: 'jittered' };
  }
}

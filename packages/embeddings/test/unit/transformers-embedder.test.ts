/**
 * @jest-environment <rootDir>/test/onnx-environment.js
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { createEmbedder, TransformersEmbedder, LexicalEmbedder } from '../../src';
import { ensureGeneratedModel } from '@ams/testing';

/** The real @xenova/transformers loading path, on a tiny BERT-shaped model the repo generates. */
const ROOT = path.resolve(__dirname, '../../../..');
/** A model directory that does not exist (nothing to clean up afterwards). */
const absentDir = () => path.join(os.tmpdir(), `ams-no-model-${process.pid}-${Math.random().toString(36).slice(2)}`);

describe('TransformersEmbedder', () => {
  const { modelDir, model } = ensureGeneratedModel();
  const embedder = new TransformersEmbedder({ model, modelDir, allowRemoteModels: false, quantized: true, thread: 'main' });
  const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

  it('loads from the local directory and gives unit vectors of the model hidden size', async () => {
    const [v] = await embedder.embed(['Agents remember what they learn.']);
    expect(embedder.dimensions).toBe(32);
    expect(v).toHaveLength(32);
    expect(norm(v!)).toBeCloseTo(1, 4);
  });

  it('is deterministic, and one batched call equals one call per text', async () => {
    const texts = ['first memory about postgres', 'second, longer memory about redis queues and workers', 'third'];
    const batched = await embedder.embed(texts);
    for (let i = 0; i < texts.length; i++) {
      const [single] = await embedder.embed([texts[i]!]);
      single!.forEach((x, j) => expect(x).toBeCloseTo(batched[i]![j]!, 4));
    }
  });

  it('a batch of mixed lengths (embedded in length buckets) gives each text its own vector, in input order', async () => {
    const texts = Array.from({ length: 40 }, (_, i) => `memory ${i} ${'about queues and workers '.repeat((i * 7) % 13)}`.trim());
    const batched = await embedder.embed(texts);
    expect(batched).toHaveLength(texts.length);
    // Dynamic quantization sees the padding, so vectors agree to 3 places, not bit for bit.
    for (const i of [0, 1, 5, 12, 26, 39]) {
      const [single] = await embedder.embedPadded([texts[i]!]);
      single!.forEach((x, j) => expect(x).toBeCloseTo(batched[i]![j]!, 3));
    }
  });

  it('concurrent single texts share model calls and each gets the vector it would get alone', async () => {
    const texts = Array.from({ length: 12 }, (_, i) => `query ${i} ${'about kafka '.repeat(i % 4)}`.trim());
    const alone = await Promise.all(texts.map(async (t) => (await embedder.embedPadded([t]))[0]!));
    const together = await Promise.all(texts.map(async (t) => (await embedder.embed([t]))[0]!));
    together.forEach((v, i) => v.forEach((x, j) => expect(x).toBeCloseTo(alone[i]![j]!, 3)));
  });

  it('with intraOpThreads on the calling thread, gives the same vectors (its session made from the model file with that thread count)', async () => {
    const threaded = new TransformersEmbedder({ model, modelDir, allowRemoteModels: false, quantized: true, thread: 'main', intraOpThreads: 2 });
    const texts = ['first memory about postgres', 'second, longer memory about redis queues and workers'];
    const [mine, theirs] = await Promise.all([threaded.embedPadded(texts), embedder.embedPadded(texts)]);
    mine.forEach((v, i) => v.forEach((x, j) => expect(x).toBeCloseTo(theirs[i]![j]!, 5)));
  });

  it('truncates a 50,000-character input instead of failing', async () => {
    const [v] = await embedder.embed(['word '.repeat(10_000)]);
    expect(norm(v!)).toBeCloseTo(1, 4);
  });

  it("runs the model on the process's model thread: same vectors, the event loop free meanwhile, a run's failure only its caller's, its intra-op threads as configured", () => {
    const short = ensureGeneratedModel({ kind: 'short-window' });
    expect(short.modelDir).toBe(modelDir);
    const texts = ['first memory about postgres', 'second, longer memory about redis queues and workers'];
    // Its own process: this one has onnxruntime-node on its main thread (see model-thread.ts).
    const script = path.join(__dirname, '../support/embed-in-model-thread.ts');
    const out = execFileSync(process.execPath, ['--import', 'tsx', script, modelDir, model, short.model, ...texts], { cwd: ROOT, env: { ...process.env, EMBEDDING_THREAD: 'worker' }, stdio: ['ignore', 'pipe', 'ignore'] });
    const seen = JSON.parse(out.toString()) as { vectors: number[][]; batch: number[][]; ticks: number; failure: string | null; after: number[]; same: number[]; threadsAdded: number };
    return embedder.embed(texts).then((here) => {
      for (const list of [seen.vectors, seen.batch]) list.forEach((v, i) => v.forEach((x, j) => expect(x).toBeCloseTo(here[i]![j]!, 4)));
      expect(seen.ticks).toBeGreaterThan(0);
      expect(seen.failure).toEqual(expect.any(String));
      seen.after.forEach((x, j) => expect(x).toBeCloseTo(here[0]![j]!, 4));
      // intraOpThreads reaches ONNX Runtime: the same vectors from a session with its own thread count.
      seen.same.forEach((x, j) => expect(x).toBeCloseTo(here[0]![j]!, 4));
      expect(seen.threadsAdded).toBe(2);
    });
  });

  it('names the directory and the fix when the model is missing', async () => {
    const empty = absentDir();
    const missing = new TransformersEmbedder({ model: 'Xenova/all-MiniLM-L6-v2', modelDir: empty, allowRemoteModels: false, quantized: true });
    await expect(missing.embed(['x'])).rejects.toThrow(new RegExp(`${empty}.*model:download.*EMBEDDING_PROVIDER=lexical`));
  });
});

describe('createEmbedder', () => {
  const base = { model: 'Xenova/all-MiniLM-L6-v2', allowRemoteModels: false, modelHost: 'http://127.0.0.1:1', quantized: true, thread: 'main' as const };
  const empty = absentDir;

  it('gives the lexical embedder when asked', async () => {
    expect(await createEmbedder({ ...base, provider: 'lexical', modelDir: empty(), allowLexicalFallback: false })).toBeInstanceOf(LexicalEmbedder);
  });

  it('falls back to lexical with a warning where allowed (embedded mode)', async () => {
    const warnings: string[] = [];
    const e = await createEmbedder({ ...base, provider: 'transformers', modelDir: empty(), allowLexicalFallback: true }, { info: () => undefined, warn: (m) => warnings.push(m) });
    expect(e.provider).toBe('lexical');
    expect(warnings[0]).toMatch(/not found.*Falling back to the lexical embedder/);
  });

  it('refuses to start without the model where no fallback is allowed (production)', async () => {
    await expect(createEmbedder({ ...base, provider: 'transformers', modelDir: empty(), allowLexicalFallback: false })).rejects.toThrow(/model:download/);
  });

  it('loads a model of another size than 384: the vector columns take any size (re-embedding moves a store to it)', async () => {
    const { modelDir, model } = ensureGeneratedModel();
    const embedder = await createEmbedder({ ...base, model, modelDir, provider: 'transformers', allowLexicalFallback: false });
    expect(embedder.dimensions).toBe(32);
  });
});

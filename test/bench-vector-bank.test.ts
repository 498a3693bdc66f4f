/**
 * @jest-environment <rootDir>/test/onnx-environment.js
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TransformersEmbedder } from '@ams/embeddings';
import { ensureGeneratedModel } from '@ams/testing';
import { MIN_BANKED, VectorBank } from '../bench/model';

/** The benches' vector bank on a fresh machine: nothing cached, and no time given to embed. */
describe('the bench vector bank', () => {
  const { modelDir, model } = ensureGeneratedModel();
  const embedder = new TransformersEmbedder({ model, modelDir, allowRemoteModels: false, quantized: true, thread: 'main' });
  let cacheDir: string;
  beforeAll(() => {
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ams-bench-bank-'));
  });
  afterAll(() => fs.rmSync(cacheDir, { recursive: true, force: true }));

  it('banks its first vectors even with a budget of 0 s, so every document gets a vector', async () => {
    const docs = Array.from({ length: 1_000 }, (_, i) => `document number ${i} about topic ${i % 17}`);
    const bank = new VectorBank(embedder, 'fresh', 32, cacheDir);
    expect(bank.size).toBe(0);
    expect(() => bank.vector(0)).toThrow(/vector bank is empty/);
    expect(await bank.extend(docs, 10_000, 0, 32)).toBe(MIN_BANKED);
    expect(bank.vector(3).source).toBe('model');
    const far = bank.vector(9_999);
    expect(far.source).toBe('jittered');
    expect(far.vector).toHaveLength(32);
    // The next run reads what this one banked.
    expect(new VectorBank(embedder, 'fresh', 32, cacheDir).size).toBe(MIN_BANKED);
  });
});

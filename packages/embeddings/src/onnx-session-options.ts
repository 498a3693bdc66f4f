import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The load in progress on this thread: its ONNX file and session options. */
let loading: { file: string; options: Record<string, unknown> } | undefined;
let patched = false;

/**
 * Runs `load` (a transformers.js pipeline load) with ONNX Runtime's intra-op thread count set for the
 * sessions it makes, on the calling thread — the same as model-thread/worker.mjs does on the model
 * thread (see there why the session is made from the model's file). 0 or absent: the runtime's default.
 */
export async function withIntraOpThreads<T>(threads: number | undefined, modelDir: string, model: string, quantized: boolean, load: () => Promise<T>): Promise<T> {
  if (!threads || threads <= 0) return load();
  if (!patched) {
    // The copy transformers.js itself imports (its dependency, not ours).
    const ort = createRequire(require.resolve('@xenova/transformers'))('onnxruntime-node') as {
      InferenceSession: { create: (model: unknown, options?: Record<string, unknown>, ...rest: unknown[]) => Promise<unknown> };
    };
    const create = ort.InferenceSession.create.bind(ort.InferenceSession);
    ort.InferenceSession.create = (model: unknown, options?: Record<string, unknown>, ...rest: unknown[]) =>
      loading && fs.existsSync(loading.file)
        ? create(loading.file, { ...options, executionProviders: ['cpu'], ...loading.options }, ...rest)
        : create(model, options, ...rest);
    patched = true;
  }
  loading = { file: path.resolve(modelDir, model, 'onnx', quantized ? 'model_quantized.onnx' : 'model.onnx'), options: { intraOpNumThreads: threads } };
  try {
    return await load();
  } finally {
    loading = undefined;
  }
}

// The model thread (see model-thread.ts): every feature-extraction pipeline of the process, run here
// so the model's forward pass, tokenizer and pooling never block the event loop. Plain JavaScript:
// a worker thread loads it without a TypeScript loader.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';

/** key → Promise of the pipeline. */
const pipelines = new Map();
/** transformers.js keeps its settings in one global object: loads go one at a time. */
let loading = Promise.resolve();
/** The load in progress: its session options and its ONNX file (transformers.js 2.17 passes no options of its own). */
let loadingSession;
let optionsPatched = false;

/**
 * ONNX Runtime's InferenceSession.create, given the load's session options too. onnxruntime-node
 * 1.14 applies them only to a session made from a file path (from a buffer, which transformers.js
 * passes, it ignores them all and runs its default, an intra-op thread per core that spins between
 * runs): with options, the session is made from the model's file instead.
 */
function patchSessionOptions() {
  if (optionsPatched) return;
  // The copy transformers.js itself imports (its dependency, not ours).
  const { InferenceSession } = createRequire(createRequire(import.meta.url).resolve('@xenova/transformers'))('onnxruntime-node');
  const create = InferenceSession.create.bind(InferenceSession);
  InferenceSession.create = (model, options, ...rest) => {
    if (!loadingSession || !fs.existsSync(loadingSession.file)) return create(model, options, ...rest);
    // Options are checked on this path: 'cpu' is the one execution provider onnxruntime-node has.
    return create(loadingSession.file, { ...options, executionProviders: ['cpu'], ...loadingSession.options }, ...rest);
  };
  optionsPatched = true;
}

function load({ model, modelDir, quantized, allowRemoteModels, modelHost, intraOpThreads }) {
  const loaded = loading.then(async () => {
    if (intraOpThreads > 0) {
      patchSessionOptions();
      const file = path.resolve(modelDir, model, 'onnx', quantized ? 'model_quantized.onnx' : 'model.onnx');
      loadingSession = { file, options: { intraOpNumThreads: intraOpThreads } };
    }
    const transformers = await import('@xenova/transformers');
    const { env } = transformers;
    env.localModelPath = path.resolve(modelDir);
    env.allowLocalModels = true;
    env.allowRemoteModels = allowRemoteModels;
    env.cacheDir = path.resolve(modelDir);
    if (modelHost) env.remoteHost = `${modelHost.replace(/\/+$/, '')}/`;
    try {
      return await transformers.pipeline('feature-extraction', model, { quantized });
    } finally {
      loadingSession = undefined;
    }
  });
  loading = loaded.catch(() => undefined);
  return loaded;
}

async function run(key, texts) {
  const extractor = await pipelines.get(key);
  if (!extractor) throw new Error(`model ${key} is not loaded`);
  const output = await extractor(texts, { pooling: 'mean', normalize: true });
  return { data: output.data, dims: output.dims };
}

parentPort.on('message', async ({ id, op, key, options, texts }) => {
  try {
    if (op === 'load') {
      if (!pipelines.has(key)) {
        const loaded = load(options);
        pipelines.set(key, loaded);
        // A failed load is tried again by the next 'load' (the files may appear meanwhile).
        loaded.catch(() => pipelines.delete(key));
      }
      await pipelines.get(key);
      parentPort.postMessage({ id });
      return;
    }
    const result = await run(key, texts);
    parentPort.postMessage({ id, result }, [result.data.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});

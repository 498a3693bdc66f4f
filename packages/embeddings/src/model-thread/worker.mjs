// The model thread (see model-thread.ts): every feature-extraction pipeline of the process, run here
// so the model's forward pass, tokenizer and pooling never block the event loop. Plain JavaScript:
// a worker thread loads it without a TypeScript loader.
import { createRequire } from 'node:module';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { featurePipeline } from './feature-pipeline.js';

/** key → Promise of the pipeline. */
const pipelines = new Map();
/** transformers.js keeps its settings in one global object: loads go one at a time. */
let loading = Promise.resolve();

function load({ model, modelDir, quantized, allowRemoteModels, modelHost, intraOpThreads }) {
  const loaded = loading.then(async () => {
    const transformers = await import('@xenova/transformers');
    // The copy transformers.js itself imports (its dependency, not ours).
    const ort = createRequire(createRequire(import.meta.url).resolve('@xenova/transformers'))('onnxruntime-node');
    const { env } = transformers;
    env.localModelPath = path.resolve(modelDir);
    env.allowLocalModels = true;
    env.allowRemoteModels = allowRemoteModels;
    env.cacheDir = path.resolve(modelDir);
    if (modelHost) env.remoteHost = `${modelHost.replace(/\/+$/, '')}/`;
    return featurePipeline(transformers, ort, { model, modelDir, quantized, intraOpThreads });
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

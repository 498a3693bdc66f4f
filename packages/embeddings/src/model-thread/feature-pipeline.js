// Shared by the model thread (worker.mjs) and the calling-thread loader (transformers-embedder.ts).
// CommonJS with no package imports: each caller passes its own transformers.js namespace and the
// onnxruntime-node copy transformers.js loads (the native module loads once per process).
const fs = require('node:fs');
const path = require('node:path');

/**
 * A transformers.js feature-extraction pipeline for `model`. transformers.js 2.17 passes no session
 * options to ONNX Runtime, and onnxruntime-node 1.14 honours options only for a session made from a
 * file path: with an intra-op thread count, the pipeline is assembled from transformers.js' public
 * parts (config, tokenizer, a PreTrainedModel over a session made here from the model's file) and
 * runs the same forward pass and pooling. 0 or absent: the pipeline as transformers.js builds it
 * (the runtime's default, an intra-op thread per core that spins between runs).
 */
async function featurePipeline(transformers, ort, { model, modelDir, quantized, intraOpThreads }) {
  const plain = () => transformers.pipeline('feature-extraction', model, { quantized });
  if (!(intraOpThreads > 0)) return plain();
  const file = path.resolve(modelDir, model, 'onnx', quantized ? 'model_quantized.onnx' : 'model.onnx');
  if (!fs.existsSync(file)) {
    // Not on disk yet (remote loading): transformers.js fetches it into the cache, the model dir.
    const fetched = await plain();
    if (!fs.existsSync(file)) return fetched;
    await fetched.dispose();
  }
  const [config, tokenizer, session] = await Promise.all([
    transformers.AutoConfig.from_pretrained(model),
    transformers.AutoTokenizer.from_pretrained(model, { quantized }),
    // 'cpu': the one execution provider onnxruntime-node has.
    ort.InferenceSession.create(file, { executionProviders: ['cpu'], intraOpNumThreads: intraOpThreads }),
  ]);
  const encoder = new transformers.PreTrainedModel(config, session);
  return new transformers.FeatureExtractionPipeline({ task: 'feature-extraction', model: encoder, tokenizer });
}

exports.featurePipeline = featurePipeline;

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Embedder } from './embedder';
import { CoalescedCalls } from './coalesced-calls';
import { inLengthBuckets } from './length-buckets';
import { modelThread } from './model-thread/model-thread';
import { featurePipeline } from './model-thread/feature-pipeline';

/** Where the model runs: the process's model thread (model-thread.ts), or the calling thread. */
export type ModelThreadChoice = 'worker' | 'main';

export interface TransformersOptions {
  model: string;
  modelDir: string;
  allowRemoteModels: boolean;
  quantized: boolean;
  /** Where transformers.js itself would fetch from when remote loading is on (default: the hub). */
  modelHost?: string;
  /** Default 'worker'. 'main' blocks the event loop for each model call (tests under jest use it: see model-thread.ts). */
  thread?: ModelThreadChoice;
  /** ONNX Runtime's intra-op threads per model call; 0 or absent: its default, one per physical core. */
  intraOpThreads?: number;
}

/** One model call: pooled, normalised vectors of `texts`, padded to the longest. */
type ModelCall = (texts: string[]) => Promise<Float32Array[]>;

type FeatureExtractor = (
  texts: string[],
  options: { pooling: 'mean'; normalize: boolean },
) => Promise<{ data: Float32Array; dims: number[] }>;

/** The files transformers.js reads for a feature-extraction model. */
export function modelFiles(model: string, quantized: boolean): string[] {
  return ['config.json', 'tokenizer.json', 'tokenizer_config.json', `onnx/${quantized ? 'model_quantized' : 'model'}.onnx`].map(
    (f) => path.join(model, f),
  );
}

export function modelFilesPresent(modelDir: string, model: string, quantized: boolean): boolean {
  return modelFiles(model, quantized).every((f) => fs.existsSync(path.join(modelDir, f)));
}

export function missingModelMessage(modelDir: string, model: string, quantized: boolean): string {
  const dir = path.resolve(modelDir, model);
  return (
    `Embedding model files not found in ${dir} (need ${modelFiles('', quantized).join(', ')}). ` +
    'Run `npm run model:download` on a machine with internet and copy MODEL_DIR here, ' +
    'or set EMBEDDING_PROVIDER=lexical.'
  );
}

/**
 * all-MiniLM-L6-v2 (or any BERT-style feature-extraction model) through @xenova/transformers:
 * mean pooling, L2-normalised. embed() groups its texts by length (lengthBuckets), one model call
 * per group, so a batch pads little; single texts arriving together share calls (CoalescedCalls); embedPadded() is one model call for the texts as given (the
 * bare model, for benchmarks). Inputs longer than the model's window are truncated by the tokenizer.
 */
export class TransformersEmbedder implements Embedder {
  readonly provider = 'transformers' as const;
  readonly model: string;
  dimensions = 0;
  private call?: Promise<ModelCall>;
  /** Single-text calls (queries, v1 creates) share the model by turns, in batches (see CoalescedCalls). */
  private readonly singles = new CoalescedCalls<Float32Array>(async (texts) => inLengthBuckets(texts, await this.load()));

  constructor(private readonly options: TransformersOptions) {
    this.model = options.model;
  }

  /** Loads once; concurrent first calls share the load. */
  load(): Promise<ModelCall> {
    this.call ??= this.loadModel().catch((err) => {
      this.call = undefined;
      throw err;
    });
    return this.call;
  }

  private async loadModel(): Promise<ModelCall> {
    const { model, modelDir, allowRemoteModels, quantized } = this.options;
    if (!allowRemoteModels && !modelFilesPresent(modelDir, model, quantized)) {
      throw new Error(missingModelMessage(modelDir, model, quantized));
    }
    const call = this.options.thread === 'main' ? await this.loadHere() : await this.loadInModelThread();
    const [probe] = await call(['dimension probe']);
    this.dimensions = probe!.length;
    return call;
  }

  private async loadInModelThread(): Promise<ModelCall> {
    const { model, modelDir, allowRemoteModels, quantized, modelHost, intraOpThreads } = this.options;
    const options = { model, modelDir, allowRemoteModels, quantized, modelHost, intraOpThreads };
    const key = JSON.stringify(options);
    await modelThread().load(key, options);
    return (texts) => modelThread().run(key, texts);
  }

  private async loadHere(): Promise<ModelCall> {
    const { model, modelDir, allowRemoteModels, quantized, modelHost, intraOpThreads } = this.options;
    const transformers = await import('@xenova/transformers');
    transformers.env.localModelPath = path.resolve(modelDir);
    transformers.env.allowLocalModels = true;
    transformers.env.allowRemoteModels = allowRemoteModels;
    transformers.env.cacheDir = path.resolve(modelDir);
    if (modelHost) transformers.env.remoteHost = `${modelHost.replace(/\/+$/, '')}/`;
    // The copy transformers.js itself imports (its dependency, not ours).
    const ort: unknown = createRequire(require.resolve('@xenova/transformers'))('onnxruntime-node');
    const extractor = (await featurePipeline(transformers, ort, { model, modelDir, quantized, intraOpThreads })) as FeatureExtractor;
    return async (texts) => {
      const output = await extractor(texts, { pooling: 'mean', normalize: true });
      const dims = output.dims[output.dims.length - 1]!;
      return texts.map((_, i) => Float32Array.from(output.data.subarray(i * dims, (i + 1) * dims)));
    };
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 1) return [await this.singles.call(texts[0]!)];
    if (texts.length === 0) return [];
    return inLengthBuckets(texts, await this.load());
  }

  /** One model call, every text padded to the longest. */
  async embedPadded(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    return (await this.load())(texts);
  }
}

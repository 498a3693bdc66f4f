export interface FeaturePipelineOptions {
  model: string;
  modelDir: string;
  quantized: boolean;
  /** ONNX Runtime's intra-op threads per model call; 0 or absent: its default. */
  intraOpThreads?: number;
}

/** A transformers.js feature-extraction pipeline with its ONNX session's thread count set (see feature-pipeline.js). */
export function featurePipeline(transformers: unknown, ort: unknown, options: FeaturePipelineOptions): Promise<unknown>;

import path from 'node:path';
import { loadConfig } from '@ams/core';
import { downloadModel } from '../download/download-model';
import { progressFor } from '../download/progress';

const consoleLogger = {
  info: (message: string, meta?: Record<string, unknown>) => console.log(message, meta ? JSON.stringify(meta) : ''),
  warn: (message: string, meta?: Record<string, unknown>) => console.warn(message, meta ? JSON.stringify(meta) : ''),
};

/**
 * `npm run model:download`: fetches EMBEDDING_MODEL's files from EMBEDDING_MODEL_HOST into
 * MODEL_DIR/<model>/ (verified, atomic, resumable), skipping files already present. The API does
 * the same on its first start in embedded mode; this is for images and offline machines.
 */
async function main(): Promise<void> {
  const { embedding } = loadConfig();
  const { fetched, present } = await downloadModel({
    host: embedding.modelHost,
    model: embedding.model,
    modelDir: embedding.modelDir,
    quantized: embedding.quantized,
    progress: progressFor(consoleLogger),
  });
  console.log(`Model ready in ${path.resolve(embedding.modelDir, embedding.model)} (${fetched.length} fetched, ${present.length} already present)`);
}

main().catch((err) => {
  console.error(`Could not download the model: ${(err as Error).message}`);
  process.exit(1);
});

import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '@ams/core';

const FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx', 'onnx/model.onnx'];

/**
 * `npm run model:download`: fetches EMBEDDING_MODEL's files from the Hugging Face hub into
 * MODEL_DIR/<model>/, skipping files already present. Needs internet; run it once, then copy
 * MODEL_DIR to machines without it.
 */
async function main(): Promise<void> {
  const { embedding } = loadConfig();
  const target = path.resolve(embedding.modelDir, embedding.model);
  for (const file of FILES) {
    const dest = path.join(target, file);
    if (fs.existsSync(dest)) {
      console.log(`present  ${file}`);
      continue;
    }
    const url = `https://huggingface.co/${embedding.model}/resolve/main/${file}`;
    const res = await fetch(url);
    if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.writeFileSync(`${dest}.part`, Buffer.from(await res.arrayBuffer()));
    fs.renameSync(`${dest}.part`, dest);
    console.log(`fetched  ${file}`);
  }
  console.log(`Model ready in ${target}`);
}

main().catch((err) => {
  console.error(`Could not download the model: ${(err as Error).message}`);
  process.exit(1);
});

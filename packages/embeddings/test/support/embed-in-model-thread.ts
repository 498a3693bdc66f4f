/**
 * Run as its own process (onnxruntime-node loads in one thread per process, and jest's process has
 * it on its main thread): embeds argv's texts on the model thread while timing the event loop, and
 * prints what it saw as JSON.
 */
import fs from 'node:fs';
import { TransformersEmbedder } from '../../src';

async function main(): Promise<void> {
  const [modelDir, model, shortWindowModel, ...texts] = process.argv.slice(2);
  const embedder = new TransformersEmbedder({ model: model!, modelDir: modelDir!, allowRemoteModels: false, quantized: true, thread: 'worker' });
  await embedder.load();
  // The event loop turns while the model runs: count its turns during a large batch.
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  await embedder.embedPadded(Array.from({ length: 64 }, (_, i) => `${'a longer text to keep the model busy '.repeat(12)} ${i}`));
  clearInterval(timer);
  const vectors = await Promise.all(texts.map(async (t) => Array.from((await embedder.embed([t]))[0]!)));
  const batch = (await embedder.embed(texts)).map((v) => Array.from(v));
  // A second model in the same thread, failing at run time on inputs past its 16 positions.
  const short = new TransformersEmbedder({ model: shortWindowModel!, modelDir: modelDir!, allowRemoteModels: false, quantized: true, thread: 'worker' });
  const failure = await short.embed(['word '.repeat(40)]).then(() => null, (err: Error) => err.message);
  const after = Array.from((await embedder.embed([texts[0]!]))[0]!);
  // The same model with 3 intra-op threads: its session adds 2 to the caller's (from its file: see worker.mjs).
  const threads = () => fs.readdirSync('/proc/self/task').length;
  const before = threads();
  const three = new TransformersEmbedder({ model: model!, modelDir: modelDir!, allowRemoteModels: false, quantized: true, thread: 'worker', intraOpThreads: 3 });
  const same = Array.from((await three.embed([texts[0]!]))[0]!);
  const threadsAdded = threads() - before;
  process.stdout.write(JSON.stringify({ vectors, batch, ticks, failure, after, same, threadsAdded }));
}

void main();

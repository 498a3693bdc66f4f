/**
 * The bare model call: the same generated model in a process of its own, run on that process's
 * main thread (no model thread, no hand-off, no batching: the transformers.js pipeline called
 * directly, ONNX Runtime's default threads), timed inside that process. A process of its own
 * because onnxruntime-node loads in one thread per process: the service under test holds its model
 * thread in the bench process, so a bare call there would go through that same thread and measure
 * the service's own overhead as the limit.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '@ams/core';
import { TransformersEmbedder } from '@ams/embeddings';
import { ensureGeneratedModel } from '@ams/testing';

interface Reply {
  id: number;
  ms: number;
  vectors: number[][];
}

export class BareModel {
  private nextId = 0;
  private readonly pending = new Map<number, (r: Reply) => void>();

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (r: Reply) => {
      this.pending.get(r.id)?.(r);
      this.pending.delete(r.id);
    });
  }

  /** `thread: 'worker'` runs the model as the service does (its model thread), to measure the hand-off alone. */
  static async start(thread: 'main' | 'worker' = 'main'): Promise<BareModel> {
    const child = spawn(process.execPath, ['--import', 'tsx', __filename, '--bare-model', thread], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`bare model process exited (${code})`)));
    });
    return new BareModel(child);
  }

  /** One model call on `texts` (padded to the longest), timed in the model's process. */
  embed(texts: string[]): Promise<{ ms: number; vectors: Float32Array[] }> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, (r) => resolve({ ms: r.ms, vectors: r.vectors.map((v) => Float32Array.from(v)) }));
      this.child.send({ id, texts });
    });
  }

  close(): void {
    this.child.kill();
  }
}

async function serve(): Promise<void> {
  const config = loadConfig();
  const thread = process.argv[process.argv.indexOf('--bare-model') + 1] === 'worker' ? 'worker' : 'main';
  const embedder = new TransformersEmbedder({ ...ensureGeneratedModel({ full: true }), allowRemoteModels: false, quantized: config.embedding.quantized, thread, intraOpThreads: config.embedding.intraOpThreads });
  await embedder.load();
  // Every sequence length the bench's queries have, so no call pays a first-shape cost.
  for (let words = 1; words <= 40; words++) await embedder.embedPadded([Array(words).fill('warm').join(' ')]);
  process.on('message', async ({ id, texts }: { id: number; texts: string[] }) => {
    const t0 = performance.now();
    const vectors = texts.length === 1 ? await embedder.embed(texts) : await embedder.embedPadded(texts);
    const ms = performance.now() - t0;
    process.send!({ id, ms, vectors: vectors.map((v) => Array.from(v)) });
  });
  process.send!('ready');
  process.on('disconnect', () => process.exit(0));
}

if (process.argv.includes('--bare-model')) void serve();

import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** What the model thread needs to load a feature-extraction pipeline (transformers.js settings). */
interface PipelineOptions {
  model: string;
  modelDir: string;
  quantized: boolean;
  allowRemoteModels: boolean;
  modelHost?: string;
  /** ONNX Runtime's intra-op threads; 0 or absent: its default (one per physical core). */
  intraOpThreads?: number;
}

interface Reply {
  id: number;
  result?: { data: Float32Array; dims: number[] };
  error?: string;
}

const WORKER_FILE = path.join(__dirname, 'worker.mjs');

/**
 * The process's one model thread (worker.mjs): the model runs there, so a request's embed does not
 * hold the event loop (the other legs of a hybrid search, other requests' HTTP and SQL, go on
 * meanwhile). One thread per process, hosting every model, started on first use and never stopped:
 * onnxruntime-node 1.14 registers its native module in the first thread that loads it, and a load
 * in any other thread (or a second worker after the first stopped) fails. If the thread dies, every
 * call fails from then on, saying so: the process must be restarted to run the model again.
 */
class ModelThread {
  private worker?: Worker;
  private stopped?: Error;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (err: Error) => void }>();

  load(key: string, options: PipelineOptions): Promise<void> {
    return this.call({ op: 'load', key, options }).then(() => undefined);
  }

  /** The pooled, normalised vectors of `texts` (one model call, padded to the longest). */
  async run(key: string, texts: string[]): Promise<Float32Array[]> {
    const { result } = await this.call({ op: 'run', key, texts });
    const { data, dims } = result!;
    const size = dims[dims.length - 1]!;
    // Copies, not views: a cached query vector must not keep its whole batch's buffer alive.
    return texts.map((_, i) => data.slice(i * size, (i + 1) * size));
  }

  private call(message: Record<string, unknown>): Promise<Reply> {
    if (this.stopped) return Promise.reject(this.stopped);
    const worker = this.started();
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Only a call in progress keeps the process alive (a CLI exits once it is done).
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, ...message });
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    // No inherited loader flags (tsx): the worker is plain JavaScript.
    const worker = new Worker(WORKER_FILE, { execArgv: [] });
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const call = this.pending.get(reply.id);
      if (!call) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      // Each caller goes on in a turn of its own: Node hands over a worker's messages in one go,
      // those that arrive meanwhile too, so callers that hold the loop (a request's SQL, on this
      // thread in embedded mode) while the next replies come would run back to back, for 80 ms
      // turns under a flood, with sockets and timers waiting: new requests were read and refused late.
      if (reply.error !== undefined) setImmediate(() => call.reject(new Error(reply.error)));
      else setImmediate(() => call.resolve(reply));
    });
    const stop = (reason: string) => {
      this.stopped ??= new Error(`The embedding model's thread stopped (${reason}); restart the process to embed again.`);
      for (const call of this.pending.values()) call.reject(this.stopped);
      this.pending.clear();
    };
    worker.on('error', (err) => stop(err.message));
    worker.on('exit', (code) => stop(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }
}

let thread: ModelThread | undefined;

/** This process's model thread. */
export const modelThread = (): ModelThread => (thread ??= new ModelThread());

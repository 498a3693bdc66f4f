import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { modelFiles } from '../transformers-embedder';
import { checksumHasher, expectationFrom, FileExpectation } from './expected-checksum';
import type { DownloadProgress } from './progress';

export interface DownloadOptions {
  /** The hub, e.g. https://huggingface.co; files are read from `<host>/<model>/resolve/main/<file>`. */
  host: string;
  model: string;
  modelDir: string;
  quantized: boolean;
  /** Defaults to the files transformers.js needs for this model. */
  files?: string[];
  progress?: DownloadProgress;
  /** Tries per file; a dropped connection resumes where it stopped. */
  attempts?: number;
  retryDelayMs?: number;
  /** A connection that sends nothing this long is dropped (and retried). */
  idleTimeoutMs?: number;
}

/** Not worth retrying: the hub said no (missing model, private repository), or there is no network. */
export class PermanentError extends Error {}

const MAX_REDIRECTS = 5;

function modelFileUrl(host: string, model: string, file: string): string {
  return `${host.replace(/\/+$/, '')}/${model}/resolve/main/${file}`;
}

/**
 * Fetches the model's files into MODEL_DIR/<model>/. Each file is written to `<file>.part` and
 * renamed only once its size (and checksum, where the hub gives one) matches, so the model
 * directory never holds a truncated file, and the model loads only when every file is there.
 * A `.part` left by a dropped connection or an earlier run is resumed with a Range request.
 */
export async function downloadModel(opts: DownloadOptions): Promise<{ fetched: string[]; present: string[] }> {
  const files = opts.files ?? modelFiles('', opts.quantized);
  const target = path.resolve(opts.modelDir, opts.model);
  const fetched: string[] = [];
  const present: string[] = [];
  try {
    for (const file of files) {
      const dest = path.join(target, file);
      if (fs.existsSync(dest)) {
        present.push(file);
        continue;
      }
      fs.mkdirSync(path.dirname(dest), { recursive: true });
      await fetchWithRetries(opts, file, dest);
      fetched.push(file);
    }
  } finally {
    opts.progress?.finish();
  }
  return { fetched, present };
}

/** Name resolution failing means no network (or no such host): retrying will not help. */
const OFFLINE_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN']);

/** fetch's "fetch failed" hides the reason in its cause (ECONNREFUSED, ENOTFOUND, ...): say it. */
export function explainFetchError(err: unknown, url: string): Error {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  // By name: an error made in another realm (a test VM) is not an instanceof this one's TypeError.
  if ((err as Error).name !== 'TypeError' || !cause) return err as Error;
  const message = `cannot reach ${new URL(url).host} (${cause.code ?? cause.message ?? 'network error'})`;
  return cause.code && OFFLINE_CODES.has(cause.code) ? new PermanentError(message) : new Error(message);
}

async function fetchWithRetries(opts: DownloadOptions, file: string, dest: string): Promise<void> {
  const attempts = opts.attempts ?? 4;
  const delay = opts.retryDelayMs ?? 1_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetchFile(opts, file, dest).catch((err: unknown) => {
        throw explainFetchError(err, modelFileUrl(opts.host, opts.model, file));
      });
    } catch (err) {
      if (err instanceof PermanentError || attempt >= attempts) throw err;
      opts.progress?.retrying(file, attempt, (err as Error).message);
      await new Promise((resolve) => setTimeout(resolve, delay * 2 ** (attempt - 1)));
    }
  }
}

/** GET following redirects by hand: the first hop's headers carry the hub's size and checksum. */
async function request(url: string, headers: Record<string, string>, signal: AbortSignal) {
  let res = await fetch(url, { headers, redirect: 'manual', signal });
  const firstHop = res.headers;
  let redirected = false;
  for (let hop = 0; res.status >= 300 && res.status < 400 && res.headers.get('location'); hop++) {
    if (hop >= MAX_REDIRECTS) throw new Error(`too many redirects from ${url}`);
    const next = new URL(res.headers.get('location')!, url).toString();
    await res.body?.cancel();
    res = await fetch(next, { headers, redirect: 'manual', signal });
    redirected = true;
  }
  return { res, firstHop, redirected };
}

async function fetchFile(opts: DownloadOptions, file: string, dest: string): Promise<void> {
  const url = modelFileUrl(opts.host, opts.model, file);
  const part = `${dest}.part`;
  let resumeFrom = fs.existsSync(part) ? fs.statSync(part).size : 0;
  const controller = new AbortController();
  const idleMs = opts.idleTimeoutMs ?? 30_000;
  let idle = setTimeout(() => controller.abort(new Error(`no data for ${idleMs} ms`)), idleMs);
  const touch = () => {
    clearTimeout(idle);
    idle = setTimeout(() => controller.abort(new Error(`no data for ${idleMs} ms`)), idleMs);
  };
  try {
    const { res, firstHop, redirected } = await request(url, resumeFrom > 0 ? { Range: `bytes=${resumeFrom}-` } : {}, controller.signal);
    if (res.status === 416) {
      // The part is not a prefix of what the hub has now: start over.
      await res.body?.cancel();
      fs.rmSync(part, { force: true });
      throw new Error(`GET ${url} refused to resume (416)`);
    }
    if (res.status !== 200 && res.status !== 206) {
      await res.body?.cancel();
      const message = `GET ${url} answered ${res.status}`;
      throw res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429 ? new PermanentError(message) : new Error(message);
    }
    if (res.status === 200) resumeFrom = 0;
    const expect: FileExpectation = expectationFrom(firstHop, redirected, res.headers, resumeFrom);
    const hasher = checksumHasher(expect);
    if (hasher && resumeFrom > 0) for await (const chunk of fs.createReadStream(part)) hasher.update(chunk as Buffer);
    opts.progress?.fileStarted(file, expect.size, resumeFrom);
    let received = resumeFrom;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        touch();
        received += chunk.length;
        hasher?.update(chunk);
        opts.progress?.advanced(file, chunk.length);
        done(null, chunk);
      },
    });
    if (!res.body) throw new Error(`GET ${url} had no body`);
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), meter, fs.createWriteStream(part, { flags: resumeFrom > 0 ? 'a' : 'w' }));
    if (expect.size !== undefined && received !== expect.size) {
      // Short: resumable from here. Long: the part is garbage.
      if (received > expect.size) fs.rmSync(part, { force: true });
      throw new Error(`${file}: received ${received} bytes, expected ${expect.size}`);
    }
    if (hasher && expect.checksum) {
      const actual = hasher.digest('hex');
      if (actual !== expect.checksum.hex) {
        fs.rmSync(part, { force: true });
        throw new Error(`${file}: ${expect.checksum.algorithm} checksum mismatch (got ${actual}, expected ${expect.checksum.hex})`);
      }
    }
    fs.renameSync(part, dest);
    opts.progress?.fileDone(file);
  } catch (err) {
    // An abort surfaces as a generic AbortError; its reason says why.
    if (controller.signal.aborted && controller.signal.reason instanceof Error) throw controller.signal.reason;
    throw err;
  } finally {
    clearTimeout(idle);
  }
}

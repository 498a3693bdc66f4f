/**
 * @jest-environment <rootDir>/test/onnx-environment.js
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createEmbedder, downloadModel, explainFetchError, logProgress, modelFilesPresent, PermanentError, TransformersEmbedder } from '../../src';
import { ensureGeneratedModel, FakeHub, startFakeHub } from '@ams/testing';

/** The downloader and first-start path against a local hub serving a generated model: never the internet. */
const MODEL = 'acme/tiny-bert';
const tiny = ensureGeneratedModel();
const source = path.join(tiny.modelDir, tiny.model);
const QUANTIZED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'];

let hub: FakeHub;
/** A local port nothing listens on: "offline" without leaving the machine. */
let offlineHost: string;
const dirs: string[] = [];
const freshDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ams-models-'));
  dirs.push(dir);
  return dir;
};
const lines = () => {
  const out: { level: string; message: string; meta?: Record<string, unknown> }[] = [];
  return {
    out,
    info: (message: string, meta?: Record<string, unknown>) => void out.push({ level: 'info', message, meta }),
    warn: (message: string, meta?: Record<string, unknown>) => void out.push({ level: 'warn', message, meta }),
  };
};
const partFiles = (dir: string): string[] =>
  fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.part'));
const sameBytes = (dir: string, file: string) =>
  expect(fs.readFileSync(path.join(dir, MODEL, file)).equals(fs.readFileSync(path.join(source, file)))).toBe(true);

beforeAll(async () => {
  hub = await startFakeHub(MODEL, source);
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  offlineHost = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(async () => {
  await hub.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  hub.requests.length = 0;
  hub.dropOnce.clear();
  hub.corrupt.clear();
});

describe('downloadModel', () => {
  it('fetches every file the model needs, verified, then the model loads; a second run fetches nothing', async () => {
    const dir = freshDir();
    const log = lines();
    const result = await downloadModel({ host: hub.url, model: MODEL, modelDir: dir, quantized: true, progress: logProgress(log, 0) });
    expect(result.fetched.sort()).toEqual([...QUANTIZED_FILES].sort());
    for (const f of QUANTIZED_FILES) sameBytes(dir, f);
    expect(partFiles(dir)).toEqual([]);
    // The weights came through the hub's redirect to its CDN.
    expect(hub.requests.map((r) => r.path)).toContain(`/${MODEL}/resolve/main/onnx/model_quantized.onnx`);
    expect(hub.requests.some((r) => r.path.startsWith('/cdn/'))).toBe(true);
    // Non-TTY progress: log lines with bytes, total, rate and ETA.
    const weights = log.out.filter((l) => l.meta?.file === 'onnx/model_quantized.onnx');
    expect(weights.at(-1)).toMatchObject({ message: 'model file downloaded', meta: { bytes: fs.statSync(path.join(source, 'onnx/model_quantized.onnx')).size, percent: 100 } });
    expect(weights[1]!.meta).toEqual(expect.objectContaining({ total_bytes: expect.any(Number), rate: expect.stringMatching(/MB\/s$/), eta_seconds: expect.any(Number) }));

    const [v] = await new TransformersEmbedder({ model: MODEL, modelDir: dir, allowRemoteModels: false, quantized: true, thread: 'main' }).embed(['downloaded']);
    expect(v).toHaveLength(32);

    hub.requests.length = 0;
    expect(await downloadModel({ host: hub.url, model: MODEL, modelDir: dir, quantized: true })).toEqual({ fetched: [], present: QUANTIZED_FILES });
    expect(hub.requests).toEqual([]);
  });

  it('resumes a file whose connection dropped halfway with a Range request', async () => {
    const dir = freshDir();
    hub.dropOnce.add('onnx/model_quantized.onnx');
    hub.dropOnce.add('tokenizer.json');
    const log = lines();
    await downloadModel({ host: hub.url, model: MODEL, modelDir: dir, quantized: true, retryDelayMs: 1, progress: logProgress(log) });
    for (const f of QUANTIZED_FILES) sameBytes(dir, f);
    expect(partFiles(dir)).toEqual([]);
    const ranged = hub.requests.filter((r) => r.range);
    // The weights always resume with a Range request. The small tokenizer's half may reach the client
    // only after the socket closed (seen under heavy load), and then it is fetched again whole.
    expect(ranged.map((r) => r.path)).toEqual(expect.arrayContaining([expect.stringMatching(/^\/cdn\//)]));
    expect(ranged.every((r) => /^bytes=[1-9]\d*-$/.test(r.range!))).toBe(true);
    // Each dropped file was retried (a retry may itself meet a connection the drop closed, and retry again).
    expect(new Set(log.out.filter((l) => l.level === 'warn').map((l) => l.meta?.file))).toEqual(new Set(['onnx/model_quantized.onnx', 'tokenizer.json']));
  });

  it('resumes a .part left by an earlier run that was killed', async () => {
    const dir = freshDir();
    const weights = fs.readFileSync(path.join(source, 'onnx/model_quantized.onnx'));
    fs.mkdirSync(path.join(dir, MODEL, 'onnx'), { recursive: true });
    fs.writeFileSync(path.join(dir, MODEL, 'onnx/model_quantized.onnx.part'), weights.subarray(0, 1000));
    await downloadModel({ host: hub.url, model: MODEL, modelDir: dir, quantized: true });
    sameBytes(dir, 'onnx/model_quantized.onnx');
    expect(hub.requests.find((r) => r.path.startsWith('/cdn/'))?.range).toBe('bytes=1000-');
  });

  it.each(['onnx/model_quantized.onnx', 'tokenizer.json'])('rejects a corrupt %s (checksum) and leaves no file behind', async (file) => {
    const dir = freshDir();
    hub.corrupt.add(file);
    await expect(downloadModel({ host: hub.url, model: MODEL, modelDir: dir, quantized: true, attempts: 2, retryDelayMs: 1 })).rejects.toThrow(
      new RegExp(`${file}: (sha256|git-sha1) checksum mismatch`),
    );
    expect(fs.existsSync(path.join(dir, MODEL, file))).toBe(false);
    expect(partFiles(dir)).toEqual([]);
    expect(modelFilesPresent(dir, MODEL, true)).toBe(false);
  });

  it('names the network error, and gives up at once when names do not resolve (offline)', () => {
    // Built by hand: a real lookup of an unknown name would ask a DNS server, and tests stay off the network.
    const failure = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(code), { code }) });
    const offline = explainFetchError(failure('ENOTFOUND'), 'https://huggingface.co/x/resolve/main/config.json');
    expect(offline).toBeInstanceOf(PermanentError);
    expect(offline.message).toBe('cannot reach huggingface.co (ENOTFOUND)');
    const refused = explainFetchError(failure('ECONNRESET'), 'http://127.0.0.1:9/x');
    expect(refused).not.toBeInstanceOf(PermanentError);
    expect(refused.message).toBe('cannot reach 127.0.0.1:9 (ECONNRESET)');
  });

  it('does not retry what the hub refuses (an unknown model)', async () => {
    await expect(downloadModel({ host: hub.url, model: 'acme/nope', modelDir: freshDir(), quantized: true, retryDelayMs: 1 })).rejects.toThrow(/answered 404/);
    expect(hub.requests).toHaveLength(1);
  });
});

describe('createEmbedder on first start', () => {
  const base = { provider: 'transformers' as const, quantized: true, thread: 'main' as const };

  it('embedded mode downloads a missing model, then serves it', async () => {
    const full = ensureGeneratedModel({ kind: 'short-window' });
    const wide = await startFakeHub('acme/wide-bert', path.join(full.modelDir, full.model));
    try {
      const dir = freshDir();
      const log = lines();
      const embedder = await createEmbedder(
        { ...base, model: 'acme/wide-bert', modelDir: dir, modelHost: wide.url, allowRemoteModels: true, allowLexicalFallback: true },
        log,
        { progress: logProgress(log) },
      );
      expect(embedder).toMatchObject({ provider: 'transformers', model: 'acme/wide-bert', dimensions: 384 });
      expect(embedder.fallbackReason).toBeUndefined();
      expect(log.out[0]).toMatchObject({ level: 'info', message: expect.stringMatching(/downloading/) });
      expect(log.out.filter((l) => l.level === 'warn')).toEqual([]);
    } finally {
      await wide.close();
    }
    // Loads a 45 MB model.
  }, 120_000);

  it('offline: one line saying why, then the lexical fallback that health reports', async () => {
    const log = lines();
    const embedder = await createEmbedder(
      { ...base, model: MODEL, modelDir: freshDir(), modelHost: offlineHost, allowRemoteModels: true, allowLexicalFallback: true },
      log,
      { attempts: 2, retryDelayMs: 1, progress: logProgress(log) },
    );
    expect(embedder.provider).toBe('lexical');
    expect(embedder.fallbackReason).toBe(`Could not download embedding model acme/tiny-bert from ${offlineHost}: cannot reach ${new URL(offlineHost).host} (ECONNREFUSED).`);
    const fallbackLines = log.out.filter((l) => /Falling back/.test(l.message));
    expect(fallbackLines).toHaveLength(1);
    expect(fallbackLines[0]!.message).not.toMatch(/\n/);
  });

  it('a corrupt download never loads: lexical fallback, no model files', async () => {
    const dir = freshDir();
    hub.corrupt.add('onnx/model_quantized.onnx');
    const embedder = await createEmbedder(
      { ...base, model: MODEL, modelDir: dir, modelHost: hub.url, allowRemoteModels: true, allowLexicalFallback: true },
      lines(),
      { attempts: 1 },
    );
    expect(embedder.fallbackReason).toMatch(/checksum mismatch/);
    expect(modelFilesPresent(dir, MODEL, true)).toBe(false);
  });

  it('split mode fails fast on a missing model unless remote loading is allowed, and then on a failed download', async () => {
    const split = { ...base, model: MODEL, modelHost: hub.url, allowLexicalFallback: false };
    await expect(createEmbedder({ ...split, modelDir: freshDir(), allowRemoteModels: false })).rejects.toThrow(/not found.*model:download/);
    expect(hub.requests).toEqual([]);
    await expect(
      createEmbedder({ ...split, modelHost: offlineHost, modelDir: freshDir(), allowRemoteModels: true }, undefined, { attempts: 1 }),
    ).rejects.toThrow(/Could not download/);
  });
});

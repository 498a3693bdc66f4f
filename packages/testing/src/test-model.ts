import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const SCRIPT = path.resolve(__dirname, '../scripts/make_bert_onnx.py');
// Debian's python3 carries python3-onnx (the `python3` on PATH may be another one without it).
const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

export interface GeneratedModel {
  modelDir: string;
  model: string;
}

/**
 * - tiny: 32 dimensions, for fast tests of the loading path;
 * - full: all-MiniLM-L6-v2's exact shape, for benchmarks;
 * - short-window: 384 dimensions but only 16 positions while its tokenizer passes up to 512
 *   tokens, so any input longer than 16 tokens makes the model fail at run time (a real failure,
 *   for tests of failed embeddings).
 */
const KINDS = {
  tiny: ['--hidden', '32', '--layers', '1', '--heads', '2', '--ffn', '64'],
  full: [],
  'short-window': ['--hidden', '384', '--layers', '1', '--heads', '2', '--ffn', '64', '--max-pos', '16'],
} as const;

/**
 * Writes a BERT-shaped ONNX model + tokenizer with random weights (no download) once, into
 * .cache/, in the layout transformers.js loads: <modelDir>/<model>/{config.json, onnx/...}.
 */
export function ensureGeneratedModel(opts: { full?: boolean; kind?: keyof typeof KINDS } = {}): GeneratedModel {
  const kind = opts.kind ?? (opts.full ? 'full' : 'tiny');
  const name = { tiny: 'test-tiny-bert', full: 'bench-minilm-shape', 'short-window': 'test-short-window-bert' }[kind];
  const modelDir = path.join(ROOT, '.cache', 'models');
  const out = path.join(modelDir, 'generated', name);
  if (!fs.existsSync(path.join(out, 'onnx', 'model_quantized.onnx'))) {
    const tmp = `${out}.tmp-${process.pid}`;
    execFileSync(PYTHON, [SCRIPT, tmp, ...KINDS[kind]], { stdio: 'pipe' });
    fs.rmSync(out, { recursive: true, force: true });
    fs.renameSync(tmp, out);
  }
  return { modelDir, model: `generated/${name}` };
}

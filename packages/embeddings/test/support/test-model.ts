import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');
const SCRIPT = path.resolve(__dirname, '../../scripts/make_bert_onnx.py');
// Debian's python3 carries python3-onnx (the `python3` on PATH may be another one without it).
const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

export interface GeneratedModel {
  modelDir: string;
  model: string;
}

/**
 * Writes a BERT-shaped ONNX model + tokenizer with random weights (no download) once, into
 * .cache/, in the layout transformers.js loads: <modelDir>/<model>/{config.json, onnx/...}.
 * `full` gives all-MiniLM-L6-v2's exact shape (for benchmarks); the default is tiny (for tests).
 */
export function ensureGeneratedModel(opts: { full?: boolean } = {}): GeneratedModel {
  const name = opts.full ? 'bench-minilm-shape' : 'test-tiny-bert';
  const modelDir = path.join(ROOT, '.cache', 'models');
  const out = path.join(modelDir, 'generated', name);
  if (!fs.existsSync(path.join(out, 'onnx', 'model_quantized.onnx'))) {
    const tmp = `${out}.tmp-${process.pid}`;
    const size = opts.full ? [] : ['--hidden', '32', '--layers', '1', '--heads', '2', '--ffn', '64'];
    execFileSync(PYTHON, [SCRIPT, tmp, ...size], { stdio: 'pipe' });
    fs.rmSync(out, { recursive: true, force: true });
    fs.renameSync(tmp, out);
  }
  return { modelDir, model: `generated/${name}` };
}

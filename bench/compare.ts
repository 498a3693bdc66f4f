/**
 * npm run bench:compare -- --base <rev> [--rounds 2] [-- <npm run bench options>]
 *
 * The same bench on two trees in one run: `<rev>` (checked out once under the system temp directory, its
 * dependencies installed there) and this working tree, alternated base, head, base, head… so the
 * machine's load hits both alike. Each tree runs its own `bench/run.ts` (what it measured then),
 * with the options after `--`. Prints each search and ingestion figure per round and the ratio of
 * the means, head / base: the check that a refactoring kept the hot path's speed.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.join(__dirname, '..');
const args = process.argv.slice(2);
const split = args.indexOf('--');
const own = split >= 0 ? args.slice(0, split) : args;
const benchArgs = split >= 0 ? args.slice(split + 1) : [];
const option = (name: string) => {
  const i = own.indexOf(`--${name}`);
  return i >= 0 ? own[i + 1] : undefined;
};

/** The service figures compared: the table row's figure (its start) and which number of its service column. */
const FIGURES: Array<{ label: string; row: RegExp; index: number }> = [
  { label: 'semantic search p50', row: /^semantic search p50$/, index: 0 },
  { label: 'semantic search p50 (tail)', row: /^semantic search p50 \/ p99/, index: 0 },
  { label: 'semantic search p99 (tail)', row: /^semantic search p50 \/ p99/, index: 1 },
  { label: 'hybrid search p50', row: /^hybrid search p50 \/ p99$/, index: 0 },
  { label: 'hybrid search p50 (tail)', row: /^hybrid search p50 \/ p99 \(/, index: 0 },
  { label: 'keyword search p50', row: /^keyword search p50/, index: 0 },
  { label: 'keyword search p95', row: /^keyword search p50/, index: 1 },
  { label: 'v1 create p50', row: /^v1 create p50/, index: 0 },
  { label: 'v2 ack p50', row: /^v2 ack p50/, index: 0 },
  { label: 'v2 ack p99', row: /^v2 ack p50/, index: 1 },
];

function git(...argv: string[]): string {
  return execFileSync('git', argv, { cwd: root, encoding: 'utf8' }).trim();
}

/** A checkout of `rev` with its dependencies, sharing this tree's bench cache (corpus, vector bank, model). */
function baseTree(rev: string): string {
  const sha = git('rev-parse', '--verify', `${rev}^{commit}`);
  // Outside this tree, where jest, tsc and the docs check would find a second copy of every package.
  const dir = path.join(os.tmpdir(), 'ams-bench-trees', sha.slice(0, 12));
  if (!fs.existsSync(dir)) git('worktree', 'add', '--detach', dir, sha);
  if (!fs.existsSync(path.join(dir, 'node_modules'))) {
    console.error(`[compare] npm ci in ${dir}`);
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  }
  const cache = path.join(dir, '.cache/bench');
  if (!fs.existsSync(cache)) {
    fs.mkdirSync(path.dirname(cache), { recursive: true });
    fs.symlinkSync(path.join(root, '.cache/bench'), cache);
  }
  return dir;
}

/** One bench run in `dir`; its printed table's service column by figure. */
interface Row {
  config: string;
  figure: string;
  service: string;
}

function runBench(dir: string): Promise<Row[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...benchArgs], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`bench in ${dir} exited with ${code}`));
      const rows: Row[] = [];
      for (const line of out.split('\n')) {
        const cells = line.split('|').map((c) => c.trim());
        if (cells.length >= 6) rows.push({ config: cells[1]!, figure: cells[2]!, service: cells[4]! });
      }
      resolve(rows);
    });
  });
}

function figureValues(rows: Row[]): Map<string, number> {
  const values = new Map<string, number>();
  for (const { config, figure, service } of rows) {
    for (const f of FIGURES) {
      const n = f.row.test(figure) ? [...service.matchAll(/(\d+(?:\.\d+)?) ms/g)][f.index]?.[1] : undefined;
      if (n !== undefined) values.set(`${config} ${f.label}`, Number(n));
    }
  }
  return values;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function main(): Promise<void> {
  const rev = option('base');
  if (!rev) throw new Error('usage: npm run bench:compare -- --base <rev> [--rounds 2] [-- <bench options>]');
  const rounds = Number(option('rounds') ?? 2);
  const base = baseTree(rev);
  const runs: Record<'base' | 'head', Array<Map<string, number>>> = { base: [], head: [] };
  for (let r = 0; r < rounds; r++) {
    for (const [side, dir] of [['base', base], ['head', root]] as const) {
      console.error(`\n[compare] round ${r + 1}/${rounds}: ${side} (${dir})`);
      runs[side].push(figureValues(await runBench(dir)));
    }
  }
  const keys = [...runs.head[0]!.keys()].filter((k) => runs.base.every((m) => m.has(k)) && runs.head.every((m) => m.has(k)));
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(', ');
  const lines = [
    `base ${git('rev-parse', '--short', rev)}, head ${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain') ? ' (+ uncommitted changes)' : ''}; bench options: ${benchArgs.join(' ') || '(defaults)'}; ${rounds} rounds, alternated`,
    '',
    '| figure (ms) | base, each round | head, each round | head / base (means) |',
    '|---|---|---|---|',
  ];
  for (const k of keys) {
    const b = runs.base.map((m) => m.get(k)!);
    const h = runs.head.map((m) => m.get(k)!);
    lines.push(`| ${k} | ${fmt(b)} | ${fmt(h)} | ${(mean(h) / mean(b)).toFixed(2)}× |`);
  }
  console.log(`\n${lines.join('\n')}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

/**
 * npm run bench:load [-- --seconds 8 --memories 1000]
 *
 * Overload behaviour of the API (issue 13, item 3): the API runs in a child process (its own event
 * loop, a throwaway database on the local PostgreSQL, loopback only); autocannon drives memory
 * searches at it. Measured: unloaded latency (one connection), the sustainable rate (accepted
 * responses per second with many connections), then fixed offered rates of 1× and 2× that rate,
 * printing the accepted rate, the 503 rate and p50/p99 of the accepted requests.
 */
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { arg, percentiles, prng, sentence, startBenchServer } from './support';

interface Target {
  baseUrl: string;
  key: string;
}

async function serve(): Promise<void> {
  const server = await startBenchServer();
  process.stdout.write(JSON.stringify({ baseUrl: server.baseUrl, key: server.key }) + '\n');
  const stop = () => void server.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function startChild(): Promise<{ child: ChildProcess; target: Target }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'load.ts'), '--serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'error' },
  });
  const lines = readline.createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`API process exited (${code})`)));
  });
  return { child, target: JSON.parse(first) as Target };
}

interface Run {
  seconds: number;
  accepted: number;
  shed: number;
  other: number;
  latencies: number[];
}

function drive(target: Target, opts: { connections: number; seconds?: number; amount?: number; rate?: number }): Promise<Run> {
  const rand = prng(7);
  const run: Run = { seconds: 0, accepted: 0, shed: 0, other: 0, latencies: [] };
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const instance = autocannon(
      {
        url: `${target.baseUrl}/v1/memories/search`,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${target.key}` },
        connections: opts.connections,
        ...(opts.seconds !== undefined ? { duration: opts.seconds } : {}),
        ...(opts.amount !== undefined ? { amount: opts.amount } : {}),
        ...(opts.rate !== undefined ? { overallRate: opts.rate } : {}),
        timeout: 60,
        requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ query: sentence(rand), limit: 10 }) }) }],
      },
      (err) => {
        run.seconds = (Date.now() - started) / 1000;
        if (err) reject(err);
        else resolve(run);
      },
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status === 200) {
        run.accepted++;
        run.latencies.push(ms);
      } else if (status === 503) run.shed++;
      else run.other++;
    });
  });
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');

function report(label: string, offered: string, r: Run): void {
  const p = percentiles(r.latencies);
  console.log(
    [label.padEnd(12), offered.padStart(9), fmt(r.accepted / r.seconds).padStart(10), fmt(r.shed / r.seconds).padStart(9), String(r.other).padStart(6), fmt(p.p50).padStart(9), fmt(p.p99).padStart(9)].join(' '),
  );
}

async function main(): Promise<void> {
  if (process.argv.includes('--serve')) return serve();
  const seconds = arg('seconds', 8);
  const memories = arg('memories', 1000);
  const { child, target } = await startChild();
  try {
    const rand = prng(42);
    for (let i = 0; i < memories; i += 100) {
      const batch = Array.from({ length: Math.min(100, memories - i) }, () => ({ content: sentence(rand), agent_id: 'load' }));
      const res = await fetch(`${target.baseUrl}/v1/memories/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${target.key}` },
        body: JSON.stringify({ memories: batch }),
      });
      if (res.status !== 200) throw new Error(`seeding failed: ${res.status}`);
    }
    console.log(`${memories} memories; POST /v1/memories/search; ${seconds} s per step; API in its own process\n`);
    console.log(['step'.padEnd(12), 'offered/s', 'accepted/s', '503/s', 'other', 'p50 ms', 'p99 ms'].join(' '));
    await drive(target, { connections: 1, amount: 50 }); // warm-up
    const unloaded = await drive(target, { connections: 1, amount: 300 });
    report('unloaded', '1 conn', unloaded);
    const saturated = await drive(target, { connections: 64, seconds });
    const sustainable = Math.max(1, Math.round(saturated.accepted / saturated.seconds));
    report('saturation', '64 conn', saturated);
    for (const factor of [1, 2]) {
      const rate = sustainable * factor;
      // Enough connections that the offered rate holds even while responses are slow (open loop).
      const r = await drive(target, { connections: Math.min(1000, Math.max(64, Math.ceil(rate / 2))), seconds, rate });
      report(`${factor}× (${sustainable}/s)`, String(rate), r);
    }
    const base = percentiles(unloaded.latencies).p99;
    console.log(`\nsustainable ≈ ${sustainable}/s; unloaded p99 ${fmt(base)} ms (3× = ${fmt(3 * base)} ms)`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

/**
 * bench:load's steps for fair admission: a light tenant beside a flooding one, and bursts.
 * - two tenants: account A runs 16 clients in a closed loop (as fast as answers come, about twice
 *   what the box serves), account B sends 5 searches/s evenly from a process of its own; each
 *   alone and both together, in slices taken in turn (ABC CBA …), so a machine whose speed drifts
 *   over the minutes of the step weighs on the three alike; B beside A once A's start has passed;
 * - bursts: the rate the crowded levels reached, offered evenly and in bursts of 30, then twice it
 *   in bursts of 30: served/s against served/s offered evenly, and how fast the excess is refused.
 */
import { spawn } from 'node:child_process';
import type http from 'node:http';
import path from 'node:path';
import { percentiles } from './support';
import { closedLoop, mergeRuns, openLoop, search, wallClock, type Run, type Target, type UnseenQueries } from './load-loops';

const FLOOD_CLIENTS = 16;
const LIGHT_RATE = 5;
const BURST = 30;
/** Slices of each two-tenant step (an even number: the order reverses every other round). */
const ROUNDS = 4;
/**
 * How long the flood runs before B starts beside it: its 16 clients start at once, a burst the
 * bursts step measures. Each of A's slices, alone too, is this much longer than B's.
 */
const FLOOD_SETTLE_MS = 1_000;

export type TenantStep = 'B alone' | 'A alone' | 'together';
/** When a slice of a two-tenant step ran (wall clock, ms): what a trace of the API is read against. */
export interface StepWindow {
  step: TenantStep;
  from: number;
  to: number;
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : '-');
const rateOf = (r: Run) => r.accepted / r.seconds;

function line(cells: Array<string | number>): string {
  return cells.map((c, i) => (typeof c === 'number' ? fmt(c) : c).padStart(i === 0 ? 26 : 10)).join(' ');
}

export async function twoTenants(target: Target, agent: http.Agent, queries: UnseenQueries, seconds: number): Promise<StepWindow[]> {
  const light = target.light!;
  const slice = seconds / ROUNDS;
  const flood = () => closedLoop(FLOOD_CLIENTS, slice + FLOOD_SETTLE_MS / 1000, () => search(target, agent, queries.next()));
  const trickle = (delayMs = 0) => lightTenant(target, light.key, Array.from({ length: Math.round(LIGHT_RATE * slice) }, () => queries.next()), slice, delayMs);
  const slices = { bAlone: [] as Run[], aAlone: [] as Run[], aBeside: [] as Run[], bBeside: [] as Run[] };
  const run: Record<TenantStep, () => Promise<void>> = {
    'B alone': async () => void slices.bAlone.push(await (await trickle()).run),
    'A alone': async () => void slices.aAlone.push(await flood()),
    together: async () => {
      const beside = await trickle(FLOOD_SETTLE_MS);
      slices.aBeside.push(await flood());
      slices.bBeside.push(await beside.run);
    },
  };
  console.log(
    `\ntwo tenants, ${seconds} s each in ${ROUNDS} slices taken in turn: A ${FLOOD_CLIENTS} clients in a closed loop, B ${LIGHT_RATE}/s evenly (its own account, store and process), beside A from A's ${FLOOD_SETTLE_MS / 1000} s on`,
  );
  const windows: StepWindow[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order: TenantStep[] = ['B alone', 'A alone', 'together'];
    for (const step of round % 2 ? order.reverse() : order) {
      const from = wallClock();
      await run[step]();
      windows.push({ step, from, to: wallClock() });
    }
  }
  const [bAlone, aAlone, aBeside, bBeside] = [slices.bAlone, slices.aAlone, slices.aBeside, slices.bBeside].map(mergeRuns) as [Run, Run, Run, Run];
  console.log(line(['step', 'A/s', 'A 503/s', 'B served', 'B 503', 'B p50 ms', 'B p99 ms']));
  const show = (name: string, a?: Run, b?: Run) => {
    const p = b ? percentiles(b.latencies) : undefined;
    console.log(line([name, a ? rateOf(a) : '-', a ? a.shed / a.seconds : '-', b ? String(b.accepted) : '-', b ? String(b.shed) : '-', p?.p50 ?? '-', p?.p99 ?? '-']));
  };
  show('B alone', undefined, bAlone);
  show('A alone', aAlone);
  show('together', aBeside, bBeside);
  const bRefused = bBeside.shed + [...bBeside.other.values()].reduce((x, y) => x + y, 0);
  console.log(
    `B's refusals beside the flood: ${bRefused} of ${bBeside.accepted + bRefused} (goal 0); ` +
      `B's p99 beside ÷ alone: ${ratio(percentiles(bBeside.latencies).p99, percentiles(bAlone.latencies).p99)} (goal ≤ 2×); ` +
      `A's rate beside B ÷ alone: ${ratio(rateOf(aBeside), rateOf(aAlone))} (goal ≥ 0.9×)`,
  );
  return windows;
}

/**
 * B's searches, evenly at LIGHT_RATE, from a process of its own (load-trickle.ts), `delayMs` after
 * it is ready (its connection open): resolves once it is, with their Run to come.
 */
async function lightTenant(target: Target, key: string, queries: string[], seconds: number, delayMs: number): Promise<{ run: Promise<Run> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'load-trickle.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin!.end(JSON.stringify({ target, key, rate: LIGHT_RATE, seconds, queries, delayMs }));
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.startsWith('ready\n')) resolve();
    });
    void exited.then((code) => reject(new Error(`the light tenant's process exited (${code}) before it started`)));
  });
  const run = exited.then((code) => {
    if (code !== 0) throw new Error(`the light tenant's process exited (${code})`);
    const r = JSON.parse(output.slice('ready\n'.length)) as Omit<Run, 'other'> & { other: Array<[number, number]> };
    return { ...r, other: new Map(r.other) };
  });
  // Awaited once the flood beside it ends; a crash before then is reported there, not as unhandled.
  run.catch(() => undefined);
  return { run };
}

export async function bursts(target: Target, queries: UnseenQueries, capacity: number, seconds: number): Promise<void> {
  console.log(`\nbursts, ${seconds} s each, at the rate the crowded levels reached (${capacity}/s) and twice it:`);
  console.log(line(['offered', 'served/s', '503/s', 'p50 ms', 'p99 ms', '503 p99 ms']));
  const show = (name: string, r: Run) => {
    const p = percentiles(r.latencies);
    console.log(line([name, rateOf(r), r.shed / r.seconds, p.p50, p.p99, percentiles(r.shedLatencies).p99]));
    return r;
  };
  const even = show(`${capacity}/s evenly`, await openLoop(target, queries, capacity, seconds));
  const burst = show(`${capacity}/s in bursts of ${BURST}`, await openLoop(target, queries, capacity, seconds, { burst: BURST }));
  const over = show(`${2 * capacity}/s in bursts of ${BURST}`, await openLoop(target, queries, 2 * capacity, seconds, { burst: BURST }));
  console.log(
    `served/s in bursts ÷ evenly: ${ratio(rateOf(burst), rateOf(even))} (goal ≥ 0.9); ` +
      `at 2× in bursts ÷ evenly at 1×: ${ratio(rateOf(over), rateOf(even))} (goal ≥ 0.9), 503 p99 ${fmt(percentiles(over.shedLatencies).p99)} ms (goal < 50 ms)`,
  );
}

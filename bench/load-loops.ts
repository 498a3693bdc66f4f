/** The clients of bench:load: unseen queries, searches over kept-alive sockets, closed and open loops, and their tallies. */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

/** The header a search says when it was sent by (see load-trace.ts). */
export const SENT_AT_HEADER = 'x-bench-sent-at';

/** Now on the clock every process of the machine shares (ms since the epoch, sub-millisecond). */
export const wallClock = (): number => performance.timeOrigin + performance.now();

export interface Target {
  baseUrl: string;
  key: string;
  databaseUrl: string;
  accountId: string;
  seeded: string;
  /** A second account over a small store of its own: the light tenant beside the first. */
  light?: { key: string; accountId: string };
}

/** Queries in the corpus' order, each handed out once in the whole run (then numbered variants: still unseen). */
export class UnseenQueries {
  private i = 0;
  constructor(private readonly texts: string[]) {}
  next(): string {
    const i = this.i++;
    const text = this.texts[i % this.texts.length]!;
    return i < this.texts.length ? text : `${text} (${Math.floor(i / this.texts.length)})`;
  }
}

export interface Run {
  seconds: number;
  accepted: number;
  shed: number;
  other: Map<number, number>;
  latencies: number[];
  shedLatencies: number[];
}

const newRun = (): Run => ({ seconds: 0, accepted: 0, shed: 0, other: new Map(), latencies: [], shedLatencies: [] });

/** Runs of one step taken in slices, as one run. */
export function mergeRuns(runs: Run[]): Run {
  const all = newRun();
  for (const r of runs) {
    all.seconds += r.seconds;
    all.accepted += r.accepted;
    all.shed += r.shed;
    for (const [status, n] of r.other) all.other.set(status, (all.other.get(status) ?? 0) + n);
    all.latencies.push(...r.latencies);
    all.shedLatencies.push(...r.shedLatencies);
  }
  return all;
}

function tally(run: Run, status: number, ms: number): void {
  if (status === 200) {
    run.accepted++;
    run.latencies.push(ms);
  } else if (status === 503) {
    run.shed++;
    run.shedLatencies.push(ms);
  } else run.other.set(status, (run.other.get(status) ?? 0) + 1);
}

/** Opens `agent`'s keep-alive connection with a request that costs the server nothing to speak of, so no timed request pays the connect. */
export function warmConnection(target: Target, agent: http.Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    http.get(`${target.baseUrl}/v1/health`, { agent }, (res) => res.resume().once('end', resolve)).once('error', reject);
  });
}

/** One search over a keep-alive agent; its status (0: no answer). */
export function search(target: Target, agent: http.Agent, query: string, key = target.key): Promise<number> {
  const body = JSON.stringify({ query, limit: 10, search_mode: 'semantic' });
  return new Promise((resolve) => {
    const req = http.request(`${target.baseUrl}/v1/memories/search`, {
      method: 'POST',
      agent,
      timeout: 60_000,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'content-length': Buffer.byteLength(body), [SENT_AT_HEADER]: String(wallClock()) },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end(body);
  });
}

/**
 * `clients` loops, each sending its next request when its answer came, for `seconds`; a refused
 * one waits the answer's Retry-After (1 s) first, as a client should (retrying at once would turn
 * the bench into a flood of refusals that the bench process itself spends the cores on).
 */
export async function closedLoop(clients: number, seconds: number, one: () => Promise<number>): Promise<Run> {
  const run = newRun();
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        const status = await one();
        tally(run, status, performance.now() - t0);
        if (status === 503) await new Promise((r) => setTimeout(r, Math.min(1000, until - performance.now())));
      }
    }),
  );
  run.seconds = (performance.now() - started) / 1000;
  return run;
}

/**
 * Open loop: requests sent at evenly spaced times whatever the answers do, `burst` at a time (the
 * bursts spaced so the rate is the same). Latency counts from the time a request was due, so a
 * generator that fell behind does not hide the wait. `key`: another account's.
 */
export async function openLoop(
  target: Target,
  queries: UnseenQueries,
  rate: number,
  seconds: number,
  opts: { burst?: number; key?: string; agent?: http.Agent } = {},
): Promise<Run> {
  const burst = opts.burst ?? 1;
  const agent = opts.agent ?? new http.Agent({ keepAlive: true, maxSockets: 2000 });
  const run = newRun();
  const started = performance.now();
  const sent: Promise<void>[] = [];
  for (let i = 0; i < Math.round((rate * seconds) / burst); i++) {
    const due = started + (i * burst * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    for (let j = 0; j < burst; j++) sent.push(search(target, agent, queries.next(), opts.key).then((status) => tally(run, status, performance.now() - due)));
  }
  await Promise.all(sent);
  run.seconds = seconds;
  if (!opts.agent) agent.destroy();
  return run;
}


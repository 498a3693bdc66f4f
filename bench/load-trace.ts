/**
 * `BENCH_TRACE=<file> npm run bench:load`: where the light tenant's searches wait, seen from the
 * API. The API's process records each of the light tenant's searches (when its client sent it, by
 * the `x-bench-sent-at` header: one machine, one clock; when the server read its headers; when it
 * answered) and each turn of its event loop longer than LONG_TURN_MS (a 5 ms timer that ran late),
 * writes them to the file as it stops, and the bench prints them per step of the two-tenant run:
 * a request read late waited behind the loop's turns, one handled slowly waited for its slot, the
 * model or the statements of others.
 */
import fs from 'node:fs';
import type http from 'node:http';
import { SENT_AT_HEADER, wallClock } from './load-loops';
import type { StepWindow, TenantStep } from './load-fairness';
import { percentiles } from './support';

const LONG_TURN_MS = 15;

interface Trace {
  /** [sent, read, answered] per light-tenant search. */
  requests: Array<[number, number, number]>;
  /** [started, ms] per long turn of the event loop. */
  turns: Array<[number, number]>;
}

/** Starts recording in the API's process; the returned function writes the file. */
export function recordTrace(server: http.Server, lightKey: string, file: string): () => void {
  const trace: Trace = { requests: [], turns: [] };
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.headers.authorization !== `Bearer ${lightKey}`) return;
    const read = wallClock();
    const sent = Number(req.headers[SENT_AT_HEADER]);
    res.once('finish', () => trace.requests.push([sent, read, wallClock()]));
  });
  let last = wallClock();
  setInterval(() => {
    const now = wallClock();
    if (now - last > LONG_TURN_MS) trace.turns.push([last, now - last]);
    last = now;
  }, 5).unref();
  return () => fs.writeFileSync(file, JSON.stringify(trace));
}

/** Prints the trace by step of the two-tenant run (each step the sum of its slices). */
export function reportTrace(file: string, windows: StepWindow[]): void {
  const { requests, turns } = JSON.parse(fs.readFileSync(file, 'utf8')) as Trace;
  if (windows.length === 0) return console.log(`\n${file}: no two-tenant step ran`);
  const ms = (p: { p50: number; p99: number }) => `${p.p50.toFixed(1)} / ${p.p99.toFixed(1)}`;
  const within = (at: number, step: TenantStep) => windows.some((w) => w.step === step && at >= w.from && at < w.to);
  console.log(`\n${file}: the light tenant's searches (p50 / p99 ms) and the API's event-loop turns over ${LONG_TURN_MS} ms`);
  for (const step of ['B alone', 'A alone', 'together'] as const) {
    const reqs = requests.filter(([sent]) => within(sent, step));
    const long = turns.filter(([at]) => within(at, step)).map(([, t]) => t);
    const span = windows.filter((w) => w.step === step).reduce((sum, w) => sum + w.to - w.from, 0);
    const searches = reqs.length ? `read after ${ms(percentiles(reqs.map(([s, r]) => r - s)))}, answered after ${ms(percentiles(reqs.map(([, r, a]) => a - r)))}; ` : '';
    const loop = long.length ? `${long.length} long turns, ${ms(percentiles(long))} ms, ${((long.reduce((x, y) => x + y, 0) / span) * 100).toFixed(0)} % of the time` : 'no long turn';
    console.log(`  ${step.padEnd(10)} ${searches}${loop}`);
  }
}

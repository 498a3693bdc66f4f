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

/** Prints the trace: the light tenant alone (its first `alone` searches), the flood alone between, then both. */
export function reportTrace(file: string, alone: number): void {
  const { requests, turns } = JSON.parse(fs.readFileSync(file, 'utf8')) as Trace;
  if (requests.length < 2 * alone) return console.log(`\n${file}: fewer light-tenant searches than the two-tenant step sends (was it run?)`);
  const [first, beside] = [requests.slice(0, alone), requests.slice(alone)];
  const windows: Array<[string, number, number, Trace['requests']]> = [
    ['light tenant alone', first[0]![0], first[first.length - 1]![2], first],
    ['flood alone', first[first.length - 1]![2], beside[0]![0], []],
    ['both', beside[0]![0], beside[beside.length - 1]![2], beside],
  ];
  const ms = (p: { p50: number; p99: number }) => `${p.p50.toFixed(1)} / ${p.p99.toFixed(1)}`;
  console.log(`\n${file}: the light tenant's searches (p50 / p99 ms) and the API's event-loop turns over ${LONG_TURN_MS} ms`);
  for (const [name, from, to, reqs] of windows) {
    const long = turns.filter(([at]) => at >= from && at < to).map(([, t]) => t);
    const searches = reqs.length ? `read after ${ms(percentiles(reqs.map(([s, r]) => r - s)))}, answered after ${ms(percentiles(reqs.map(([, r, a]) => a - r)))}; ` : '';
    const loop = long.length ? `${long.length} long turns, ${ms(percentiles(long))} ms, ${((long.reduce((x, y) => x + y, 0) / (to - from)) * 100).toFixed(0)} % of the time` : 'no long turn';
    console.log(`  ${name.padEnd(18)} ${searches}${loop}`);
  }
}

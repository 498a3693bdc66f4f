/**
 * CPU time from /proc, by who spent it: the API's main thread (its event loop: HTTP, auth,
 * validation, the driver, JSON), the API's other threads (the model's, libuv's, the collector's),
 * this bench process (its HTTP clients, or the bare pipeline), PostgreSQL, Redis and the rest of the
 * box. It moves less with the machine's other load than rates do, and shows where a search's cost
 * goes beside the bare pipeline's. NaN where /proc is missing.
 */
import fs from 'node:fs';

const CLOCK_TICKS = 100;

export const CPU_GROUPS = ['api main', 'api threads', 'bench', 'postgres', 'redis', 'other'] as const;
type CpuGroup = (typeof CPU_GROUPS)[number];
export type CpuSample = Record<CpuGroup, number>;

/** utime + stime of a /proc stat line, in seconds; its command name. */
function readStat(file: string): { comm: string; seconds: number } | undefined {
  try {
    const stat = fs.readFileSync(file, 'utf8');
    const close = stat.lastIndexOf(')');
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = stat.slice(close + 2).split(' ');
    return { comm: stat.slice(stat.indexOf('(') + 1, close), seconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS };
  } catch {
    return undefined;
  }
}

/** The API main thread's CPU seconds alone (cheap: one file). */
function mainThreadCpuSeconds(pid: number): number {
  return readStat(`/proc/${pid}/task/${pid}/stat`)?.seconds ?? NaN;
}

/** All cores' busy seconds (/proc/stat's first line, without idle and iowait). */
function boxBusySeconds(): number {
  try {
    const [, ...ticks] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = ticks;
    return (user! + nice! + system! + irq! + softirq! + steal!) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** CPU seconds spent so far by each group, the API being process `apiPid`. */
export function cpuByGroup(apiPid: number): CpuSample {
  const out: CpuSample = { 'api main': 0, 'api threads': 0, bench: 0, postgres: 0, redis: 0, other: 0 };
  let known = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const proc = readStat(`/proc/${pid}/stat`);
    if (!proc) continue;
    let group: CpuGroup | undefined;
    if (pid === apiPid) {
      const main = mainThreadCpuSeconds(pid);
      out['api main'] += main;
      out['api threads'] += proc.seconds - main;
      known += proc.seconds;
      continue;
    }
    if (pid === process.pid) group = 'bench';
    else if (proc.comm === 'postgres') group = 'postgres';
    else if (proc.comm.startsWith('redis-server')) group = 'redis';
    if (!group) continue;
    out[group] += proc.seconds;
    known += proc.seconds;
  }
  out.other = boxBusySeconds() - known;
  return out;
}

/** Milliseconds of CPU per request in each group between two samples, and their sum. */
export function cpuPerRequest(before: CpuSample, after: CpuSample, requests: number): CpuSample & { total: number } {
  const per = Object.fromEntries(CPU_GROUPS.map((g) => [g, ((after[g] - before[g]) * 1000) / Math.max(1, requests)])) as CpuSample;
  return { ...per, total: CPU_GROUPS.reduce((sum, g) => sum + per[g], 0) };
}

/**
 * CPU time from /proc, by who spent it: the API's main thread (its event loop: HTTP, auth,
 * validation, the driver, JSON), the API's other threads (the model's, libuv's, the collector's),
 * this bench process (its HTTP clients, or the bare pipeline), PostgreSQL (the backends of the
 * bench's database, when it is named: the cluster may serve others), Redis and the rest of the box.
 * A process that ends between two samples is left out (it would subtract its whole life); one
 * that starts in between counts its whole life. It moves less with the machine's other load
 * than rates do, and shows where a search's cost goes beside the bare pipeline's. NaN where /proc
 * is missing.
 */
import fs from 'node:fs';

const CLOCK_TICKS = 100;

export const CPU_GROUPS = ['api main', 'api threads', 'bench', 'postgres', 'redis', 'other'] as const;
type CpuGroup = (typeof CPU_GROUPS)[number];
/** CPU seconds so far of each process (and the API's main thread) counted, with its group; the box's busy seconds. */
export interface CpuSample {
  processes: Map<string, { group: CpuGroup; seconds: number }>;
  box: number;
}

/** utime + stime of a /proc stat line, in seconds; its command name. */
export function readStat(file: string): { comm: string; seconds: number } | undefined {
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

/** The database a PostgreSQL backend serves, from its title (`postgres: [cluster: ]user database host(port) state`); none for the server's own processes. */
function backendDatabase(pid: number): string | undefined {
  try {
    const title = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '');
    return /^postgres: (?:\S+: )?\S+ (\S+) (?:\S+\(\d+\)|\[local\])/.exec(title)?.[1];
  } catch {
    return undefined;
  }
}

/** CPU seconds spent so far by each process of a group, the API being process `apiPid`; with `database`, PostgreSQL is its backends. */
export function cpuByGroup(apiPid: number, database?: string): CpuSample {
  const processes: CpuSample['processes'] = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const proc = readStat(`/proc/${pid}/stat`);
    if (!proc) continue;
    if (pid === apiPid) {
      const main = mainThreadCpuSeconds(pid);
      processes.set(`${pid}/main`, { group: 'api main', seconds: main });
      processes.set(`${pid}`, { group: 'api threads', seconds: proc.seconds - main });
      continue;
    }
    let group: CpuGroup | undefined;
    if (pid === process.pid) group = 'bench';
    else if (proc.comm === 'postgres') group = database === undefined || backendDatabase(pid) === database ? 'postgres' : undefined;
    else if (proc.comm.startsWith('redis-server')) group = 'redis';
    if (group) processes.set(`${pid}`, { group, seconds: proc.seconds });
  }
  return { processes, box: boxBusySeconds() };
}

/** Milliseconds of CPU per request in each group between two samples, and their sum. */
export function cpuPerRequest(before: CpuSample, after: CpuSample, requests: number): Record<CpuGroup, number> & { total: number } {
  const seconds = Object.fromEntries(CPU_GROUPS.map((g) => [g, 0])) as Record<CpuGroup, number>;
  for (const [key, now] of after.processes) {
    // A process started in between (a pool's new connection) counts its whole life.
    const then = before.processes.get(key);
    seconds[now.group] += now.seconds - (then?.group === now.group ? then.seconds : 0);
  }
  seconds.other = after.box - before.box - CPU_GROUPS.reduce((sum, g) => (g === 'other' ? sum : sum + seconds[g]), 0);
  const per = Object.fromEntries(CPU_GROUPS.map((g) => [g, (seconds[g] * 1000) / Math.max(1, requests)])) as Record<CpuGroup, number>;
  return { ...per, total: CPU_GROUPS.reduce((sum, g) => sum + per[g], 0) };
}

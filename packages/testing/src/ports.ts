import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';

/** Eight blocks of ports below the ephemeral range: jest worker N hands out block N mod 8 (outside jest, block 0). */
const BLOCK = 1_400;
const WORKER_BLOCKS = 8;

/** The kernel's ephemeral range, whose ports outgoing connections take as their local port. */
function ephemeralLow(): number {
  try {
    const [low] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && low > BLOCK * (WORKER_BLOCKS + 1)) return low;
  } catch {
    // Not Linux: the usual IANA range.
  }
  return 49_152;
}

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

let next: number | undefined;

/**
 * A TCP port nobody listens on right now, for a server a test starts (an API, a worker's metrics,
 * a redis-server), below the kernel's ephemeral range and in a block of this jest worker's own.
 * A port from listen(0) is an ephemeral one: between the probe and the child's bind, or while a
 * test restarts a server on it, any outgoing connection of the machine (a pool's, a Redis client's)
 * may take it as its local port, and another test's listen(0) may get it too. The child then fails
 * with EADDRINUSE, and a server that took the port answers in its place.
 */
export async function freePort(): Promise<number> {
  const worker = Number(process.env.JEST_WORKER_ID ?? 0) % WORKER_BLOCKS;
  const base = ephemeralLow() - BLOCK * (WORKER_BLOCKS - worker);
  // A random start: each test file loads this module afresh, and a file's servers may linger a moment after it.
  next ??= base + crypto.randomInt(BLOCK);
  for (let i = 0; i < BLOCK; i++) {
    const port = base + ((next - base + i) % BLOCK);
    if (await bindable(port)) {
      next = base + ((port - base + 1) % BLOCK);
      return port;
    }
  }
  throw new Error(`no free port in ${base}–${base + BLOCK - 1}`);
}

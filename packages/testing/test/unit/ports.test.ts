import fs from 'node:fs';
import net from 'node:net';
import { freePort } from '../../src/ports';

const ephemeralLow = () => Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

describe('freePort', () => {
  it('hands out distinct ports below the ephemeral range, in a block of this jest worker’s own', async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    expect(new Set(ports).size).toBe(3);
    const low = ephemeralLow();
    const worker = Number(process.env.JEST_WORKER_ID ?? 0) % 8;
    for (const port of ports) {
      expect(port).toBeLessThan(low);
      expect(port).toBeGreaterThanOrEqual(low - 1_400 * (8 - worker));
      expect(port).toBeLessThan(low - 1_400 * (7 - worker));
    }
  });

  it('skips a port someone listens on', async () => {
    const port = await freePort();
    const taken = net.createServer().listen(port + 1, '127.0.0.1');
    await new Promise((r) => taken.once('listening', r));
    try {
      const next = await freePort();
      expect(next).not.toBe(port + 1);
      expect(next).not.toBe(port);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});

import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { ams, SPAWNING } from './ams-harness';

/** A server that accepts connections and never answers; records how long each stayed open. */
async function silentServer(): Promise<{ url: string; heldMs: number[]; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const heldMs: number[] = [];
  const server = net.createServer((socket) => {
    const opened = Date.now();
    sockets.add(socket);
    socket.on('data', () => undefined); // read the request, answer nothing
    socket.on('close', () => {
      heldMs.push(Date.now() - opened);
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    heldMs,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('ams connection handling', () => {
  it('gives up on a server that accepts and never answers, after --timeout, with a message and exit 3', async () => {
    const silent = await silentServer();
    try {
      const res = await ams(['--url', silent.url, '--timeout', '1', 'status']);
      expect(res.code).toBe(3);
      expect(res.stderr).toContain(`ams: ${silent.url} did not answer: nothing received for 1 s (--timeout, AMS_TIMEOUT)`);
      // The CLI hung up about a second after connecting, not whenever the process happened to exit.
      expect(silent.heldMs).toHaveLength(1);
      expect(silent.heldMs[0]).toBeGreaterThanOrEqual(900);
      expect(silent.heldMs[0]).toBeLessThan(5_000);

      // The same from the environment, for a command with a key too.
      const fromEnv = await ams(['--url', silent.url, 'search', 'anything'], { AMS_TIMEOUT: '1', AMS_API_KEY: 'mem_whatever' });
      expect(fromEnv.code).toBe(3);
      expect(fromEnv.stderr).toContain('did not answer');
    } finally {
      await silent.close();
    }
  }, SPAWNING);

  it('never prints credentials given in the URL, and refuses them as a usage error (exit 2)', async () => {
    for (const url of ['http://admin:pw-very-secret@127.0.0.1:1', 'http://admin:pw-very-secret@[::1']) {
      const res = await ams(['--url', url, 'status']);
      expect(res.code).toBe(2);
      expect(res.stderr + res.stdout).not.toContain('pw-very-secret');
      expect(res.stderr).toMatch(/^ams: --url /);
    }
    const unknown = await ams(['--url', 'http://admin:pw-very-secret@127.0.0.1:1', 'status', '--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr + unknown.stdout).not.toContain('pw-very-secret');
  }, SPAWNING);

  it.each([
    [['--url', 'not a url', 'status'], '--url "not a url" is not a URL'],
    [['--url', 'http://[::1', 'status'], 'is not a URL'],
    [['--url', 'ftp://example.com', 'status'], '--url must be http:// or https://'],
    [['--url', 'http://127.0.0.1:1', '--timeout', '0', 'status'], '--timeout must be a positive number of seconds, not "0"'],
    [['--url', 'http://127.0.0.1:1', '--connect-timeout', 'soon', 'status'], '--connect-timeout must be a positive number of seconds'],
  ])('exits 2 for usage: %j', async (args, message) => {
    const res = await ams(args);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(message);
  }, SPAWNING);

  it('exits 2 for a malformed AMS_URL too', async () => {
    const res = await ams(['status'], { AMS_URL: 'localhost:8080:x' });
    expect(res.code).toBe(2);
  }, SPAWNING);
});

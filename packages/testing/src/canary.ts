import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A plain TCP listener that only counts connections: point a refused delivery at its port and
 * assert `connections` stays 0, i.e. the refusal happened before any connection was attempted.
 * Listens dual-stack on "::" when the host has IPv6 (so 127.0.0.1, ::1, ::ffff:127.0.0.1, 0.0.0.0
 * and the host's own addresses all land here), else on 0.0.0.0.
 */
export interface Canary {
  port: number;
  readonly connections: number;
  close(): Promise<void>;
}

export async function startCanary(): Promise<Canary> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  const listen = (host: string): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  try {
    await listen('::');
  } catch {
    await listen('0.0.0.0');
  }
  const { port } = server.address() as AddressInfo;
  return {
    port,
    get connections() {
      return connections;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

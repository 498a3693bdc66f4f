import net from 'node:net';
import { createDatabase, waitForDatabase } from '../../src';

/**
 * A process started beside its database (a compose stack) waits for it: a database not yet
 * listening, or a host name not yet resolvable, is tried again; anything else fails at once.
 */
describe('waitForDatabase', () => {
  const real = new URL(process.env.DATABASE_URL!);
  const on = (host: string, port: number, database = real.pathname) => {
    const url = new URL(real.toString());
    url.hostname = host;
    url.port = String(port);
    url.pathname = database;
    return createDatabase({ databaseUrl: url.toString(), dataDir: '', dbPoolMax: 2 });
  };

  it('waits for a database that starts listening a moment later', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const db = await on('127.0.0.1', port);
    // Nothing listens on `port` for 1.5 s; then a proxy to the real server does.
    let proxy: net.Server | undefined;
    const opens = setTimeout(() => {
      proxy = net.createServer((client) => {
        const upstream = net.connect(Number(real.port || 5432), real.hostname || '127.0.0.1');
        client.pipe(upstream).pipe(client);
        const end = () => (client.destroy(), upstream.destroy());
        client.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
      }).listen(port, '127.0.0.1');
    }, 1_500);
    const retried: string[] = [];
    try {
      await waitForDatabase(db.knex, (err) => retried.push((err as NodeJS.ErrnoException).code ?? err.message), 20_000);
      expect(retried.length).toBeGreaterThanOrEqual(1);
      expect(new Set(retried)).toEqual(new Set(['ECONNREFUSED']));
    } finally {
      clearTimeout(opens);
      await db.close();
      await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
    }
  }, 30_000);

  it('gives up on a host name that never resolves, with the resolver\'s error, once the wait is over', async () => {
    const db = await on('citus-coordinator-not-here', 5432);
    const retried: string[] = [];
    try {
      await expect(waitForDatabase(db.knex, (err) => retried.push((err as NodeJS.ErrnoException).code!), 2_500)).rejects.toMatchObject({ code: 'ENOTFOUND' });
      expect(retried.length).toBeGreaterThanOrEqual(1);
      expect(new Set(retried)).toEqual(new Set(['ENOTFOUND']));
    } finally {
      await db.close();
    }
  }, 30_000);

  it('fails at once on a database that does not exist (no wait makes it appear)', async () => {
    const db = await on(real.hostname || '127.0.0.1', Number(real.port || 5432), '/no_such_database_here');
    const retried: string[] = [];
    try {
      await expect(waitForDatabase(db.knex, (err) => retried.push(err.message))).rejects.toMatchObject({ code: '3D000' });
      expect(retried).toEqual([]);
    } finally {
      await db.close();
    }
  });
});

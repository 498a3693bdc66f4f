import type { Knex } from 'knex';
import pg from 'pg';
import type { DriverFeatures } from '../knex';
import { createPostgresKnex } from '../knex';
import { isReplicaFault } from './replica-faults';

/**
 * Runs `read` on `replica`, and again, whole, on `primary` when the replica fails it (see
 * isReplicaFault: no connection from it, a statement or a transaction failing there), so a replica
 * going away costs a retry, never an error. Reads are safe to repeat. `onFault` hears each fault
 * (the replica set takes the replica out of rotation at once).
 */
export async function readWithFailover<T>(replica: Knex, primary: Knex, read: (db: Knex) => Promise<T>, onFault: (err: unknown) => void): Promise<T> {
  try {
    return await read(replica);
  } catch (err) {
    if (!isReplicaFault(err)) throw err;
    onFault(err);
    return read(primary);
  }
}

/** The server a pg.Client is on, as pg resolves a URL (defaults and environment included). */
const serverOf = (client: Pick<pg.Client, 'host' | 'port'>): string => `${client.host}:${client.port}`;
const serverOfUrl = (url: string): string => serverOf(new pg.Client({ connectionString: url }));

/** A replica's pool: its reads, and the cut of its connections when it leaves rotation. */
export interface ReplicaPool {
  knex: Knex;
  /** Ends the pool's connections to the replica (pg's client.end()): a running read fails with its connection and runs again on the primary. */
  cut(): void;
}

/**
 * The pool of a replica's reads, on knex's and pg's public surfaces only. While `away()` says the
 * replica is out of rotation, new connections go to the primary (knex's connection provider, asked
 * again once the answer changes), and a connection taken from the pool that is not on the server
 * in use now is dropped (the pool's `validate`): a read routed to the replica a moment before it
 * left, on a connection idle until then, reconnects to the primary instead of waiting on a replica
 * that stopped answering (a hung one never closes its end). cut() ends the connections themselves.
 */
export function replicaPool(url: string, primaryUrl: string, poolMax: number, features: DriverFeatures, timeoutMs: number, away: () => boolean): ReplicaPool {
  const open = new Set<pg.Client>();
  const servers = { replica: serverOfUrl(url), primary: serverOfUrl(primaryUrl) };
  const knex = createPostgresKnex(url, poolMax, features, {
    timeoutMs,
    route: {
      to: () => (away() ? primaryUrl : url),
      opened: (client) => {
        open.add(client);
        client.once('end', () => open.delete(client));
        return serverOf(client) === servers.primary ? primaryUrl : url;
      },
      current: (client) => serverOf(client) === (away() ? servers.primary : servers.replica),
    },
  });
  return {
    knex,
    cut() {
      for (const client of open) {
        if (serverOf(client) !== servers.replica) continue;
        open.delete(client);
        void client.end().catch(() => undefined);
      }
    },
  };
}

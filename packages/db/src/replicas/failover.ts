import type { Knex } from 'knex';
import { isReplicaFault } from './replica-faults';

interface Client {
  acquireConnection(): Promise<object>;
  releaseConnection(connection: object): Promise<void>;
  query(connection: object, obj: unknown): Promise<unknown>;
  transaction(container: unknown, config?: unknown, outerTx?: unknown): PromiseLike<unknown>;
}

/**
 * Makes every read through `replica` fall back to `primary` when the replica fails it (see
 * isReplicaFault), so a replica going away costs a retry, never an error:
 *   - no connection from the replica: the query or transaction runs on a primary connection;
 *   - a statement failing on the replica: run again on the primary (reads are safe to repeat);
 *   - a transaction failing on the replica: run again, whole, on the primary.
 * `onFault` hears each fault (the replica set takes the replica out of rotation at once).
 * Set on the replica's client object; knex builds a transaction's client from the class, so
 * statements inside one are retried with it.
 */
export function installFailover(replica: Knex, primary: Knex, onFault: (err: unknown) => void): void {
  const client = replica.client as Client;
  const primaryClient = primary.client as Client;
  const lent = new WeakSet<object>();
  const borrow = async () => {
    const connection = await primaryClient.acquireConnection();
    lent.add(connection);
    return connection;
  };

  const acquire = client.acquireConnection;
  client.acquireConnection = async function (this: Client) {
    try {
      return await acquire.call(this);
    } catch (err) {
      if (!isReplicaFault(err)) throw err;
      onFault(err);
      return borrow();
    }
  };

  const release = client.releaseConnection;
  client.releaseConnection = function (this: Client, connection) {
    if (!lent.delete(connection)) return release.call(this, connection);
    return primaryClient.releaseConnection(connection);
  };

  const query = client.query;
  client.query = async function (this: Client, connection, obj) {
    // knex rewrites the object it runs (bindings positioned, options consumed): the retry starts from a copy.
    const original = typeof obj === 'object' && obj ? { ...(obj as Record<string, unknown>), options: { ...((obj as { options?: object }).options ?? {}) } } : obj;
    try {
      return await query.call(this, connection, obj);
    } catch (err) {
      if (lent.has(connection) || !isReplicaFault(err)) throw err;
      onFault(err);
      const fallback = await borrow();
      try {
        return await primaryClient.query(fallback, original);
      } finally {
        lent.delete(fallback);
        await primaryClient.releaseConnection(fallback);
      }
    }
  };

  const transaction = client.transaction;
  client.transaction = function (this: Client, container, config, outerTx) {
    const trx = transaction.call(this, container, config, outerTx);
    if (typeof container !== 'function' || outerTx) return trx;
    return Promise.resolve(trx).catch((err: unknown) => {
      if (!isReplicaFault(err)) throw err;
      onFault(err);
      return primary.transaction(container as (trx: Knex.Transaction) => Promise<unknown>, config as Knex.TransactionConfig);
    });
  };
}

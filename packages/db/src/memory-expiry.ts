import type { Knex } from 'knex';

/**
 * The one definition of "expired" for reads: a memory whose expires_at has passed
 * leaves search, lists and context at once, before the expiry sweep soft-deletes it.
 */
export function excludeExpired(q: Knex.QueryBuilder, table = 'memories'): Knex.QueryBuilder {
  return q.where((w) => w.whereNull(`${table}.expires_at`).orWhereRaw(`${table}.expires_at > now()`));
}

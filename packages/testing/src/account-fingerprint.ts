import type { Knex } from '@ams/db';

/** The tenant tables a rejected request must leave untouched (the fuzz tests compare them before and after). */
const ACCOUNT_TABLES = ['memories', 'agents', 'sessions', 'projects', 'decisions', 'patterns', 'entities', 'webhooks', 'webhook_deliveries'];

/**
 * One hash per table of everything the account holds in it: equal fingerprints, unchanged data.
 * One statement for all the tables (the fuzz tests take thousands: a statement's round trip, not
 * the hashing, was most of their time, above all on PGlite's one connection).
 */
export async function accountFingerprint(knex: Knex, accountId: string, tables = ACCOUNT_TABLES): Promise<string> {
  const columns = tables.map((table, i) => `(SELECT md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) FROM ${table} x WHERE account_id = :account) AS h${i}`);
  const { rows } = await knex.raw(`SELECT ${columns.join(', ')}`, { account: accountId });
  return tables.map((table, i) => `${table}:${rows[0][`h${i}`]}`).join(',');
}

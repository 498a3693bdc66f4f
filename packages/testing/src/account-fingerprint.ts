import type { Knex } from '@ams/db';

/** The tenant tables a rejected request must leave untouched (the fuzz tests compare them before and after). */
export const ACCOUNT_TABLES = ['memories', 'agents', 'sessions', 'projects', 'decisions', 'patterns', 'entities', 'webhooks', 'webhook_deliveries'];

/** One hash per table of everything the account holds in it: equal fingerprints, unchanged data. */
export async function accountFingerprint(knex: Knex, accountId: string, tables = ACCOUNT_TABLES): Promise<string> {
  const parts = await Promise.all(
    tables.map(async (table) => {
      const { rows } = await knex.raw(`SELECT md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS h FROM ${table} x WHERE account_id = ?`, [accountId]);
      return `${table}:${rows[0].h}`;
    }),
  );
  return parts.join(',');
}

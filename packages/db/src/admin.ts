import knexFactory from 'knex';

/** Runs one statement on the server's admin database (CREATE/DROP DATABASE cannot run inside the target). */
async function onAdmin(adminUrl: string, sql: string): Promise<void> {
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(sql);
  } finally {
    await admin.destroy();
  }
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** Creates database `name` on the server of `adminUrl`; answers its URL. For test runs and benches. */
export async function createPostgresDatabase(adminUrl: string, name: string): Promise<string> {
  if (!IDENTIFIER.test(name)) throw new Error(`not a plain database name: ${name}`);
  await onAdmin(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops database `name` (and its connections) if it exists. */
export async function dropPostgresDatabase(adminUrl: string, name: string): Promise<void> {
  if (!IDENTIFIER.test(name)) throw new Error(`not a plain database name: ${name}`);
  await onAdmin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

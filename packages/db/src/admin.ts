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

/**
 * Creates database `name` on the server of `adminUrl`; answers its URL. For test runs and benches.
 * On Citus, `citusUnregisteredPorts`: workers the database is made on (extensions included) but not
 * registered with, for a test that adds one later. Removing one after registering it raced the new
 * database's maintenance daemon ("tuple concurrently deleted").
 */
export async function createPostgresDatabase(
  adminUrl: string,
  name: string,
  options: { citusShardCount?: number; citusUnregisteredPorts?: number[] } = {},
): Promise<string> {
  if (!IDENTIFIER.test(name)) throw new Error(`not a plain database name: ${name}`);
  const workers = await citusWorkersOf(adminUrl);
  // On a Citus coordinator, the same database on every worker, then the cluster's metadata in it.
  for (const w of workers) await onAdmin(urlOn(adminUrl, w), `CREATE DATABASE ${name}`);
  await onAdmin(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  if (workers.length) await registerCitusNodes(url.toString(), adminUrl, workers, options.citusUnregisteredPorts ?? []);
  // Shards per distributed table (Citus' default is 32): fewer make a test database's migration quicker.
  if (workers.length && options.citusShardCount) await onAdmin(adminUrl, `ALTER DATABASE ${name} SET citus.shard_count = ${Math.trunc(options.citusShardCount)}`);
  return url.toString();
}

/** Drops database `name` (and its connections) if it exists (on a Citus coordinator, on its workers too). */
export async function dropPostgresDatabase(adminUrl: string, name: string): Promise<void> {
  if (!IDENTIFIER.test(name)) throw new Error(`not a plain database name: ${name}`);
  await onAdmin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  for (const w of await citusWorkersOf(adminUrl)) await onAdmin(urlOn(adminUrl, w), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

interface NodeAddress {
  host: string;
  port: number;
}

/** The workers registered in the admin database of a Citus coordinator (infra/citus-cluster.sh); none elsewhere. */
export async function citusWorkersOf(adminUrl: string): Promise<NodeAddress[]> {
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  try {
    const { rows } = await admin.raw(`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus`);
    if (!rows[0].citus) return [];
    const nodes = await admin.raw(`SELECT nodename AS host, nodeport AS port FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' ORDER BY nodeport`);
    return nodes.rows as NodeAddress[];
  } finally {
    await admin.destroy();
  }
}

function urlOn(adminUrl: string, node: NodeAddress): string {
  const url = new URL(adminUrl);
  url.hostname = node.host;
  url.port = String(node.port);
  return url.toString();
}

/** Citus' metadata is per database: the extensions on every node, the workers registered on the coordinator. */
async function registerCitusNodes(url: string, adminUrl: string, workers: NodeAddress[], unregisteredPorts: number[]): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  for (const w of workers) {
    const on = new URL(urlOn(adminUrl, w));
    on.pathname = `/${name}`;
    await onAdmin(on.toString(), `CREATE EXTENSION IF NOT EXISTS citus; CREATE EXTENSION IF NOT EXISTS vector`);
  }
  const coordinator = new URL(adminUrl);
  await onAdmin(
    url,
    `CREATE EXTENSION IF NOT EXISTS citus; CREATE EXTENSION IF NOT EXISTS vector;
     SELECT citus_set_coordinator_host('${coordinator.hostname}', ${Number(coordinator.port || 5432)});
     ${workers
       .filter((w) => !unregisteredPorts.includes(Number(w.port)))
       .map((w) => `SELECT citus_add_node('${w.host}', ${Number(w.port)});`)
       .join('\n')}`,
  );
}

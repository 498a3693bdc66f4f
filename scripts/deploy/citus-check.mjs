// The citus profile's check, after the smoke test: accounts registered (each with a memory) until
// their shards are on both workers, then each account reads its own memory back on the other API.
// Prints the node of each account. Usage: node scripts/deploy/citus-check.mjs <api url> <api-2 url> <coordinator container>
import { execFileSync } from 'node:child_process';
import { check, expectStatus } from './http.mjs';

const [api, api2, coordinator] = process.argv.slice(2);
if (!coordinator) throw new Error('usage: citus-check.mjs <api url> <api-2 url> <coordinator container>');
const sql = (query) => execFileSync('podman', ['exec', coordinator, 'psql', '-U', 'ams', '-d', 'ams', '-tAc', query], { encoding: 'utf8' }).trim();

const workers = sql(`SELECT string_agg(nodename, ',' ORDER BY nodename) FROM pg_dist_node WHERE groupid <> 0`).split(',');
check(workers.length === 2, 'two workers registered on the coordinator', workers);

const nodes = new Map();
for (let i = 0; i < 12 && new Set(nodes.values()).size < 2; i += 1) {
  const email = `citus-${Date.now()}-${i}@example.com`;
  const account = await expectStatus(201, 'POST', `${api}/v1/auth/register`, { body: { email, password: 'deploy-citus-password' } });
  const key = account.body.api_key;
  const memory = await expectStatus(201, 'POST', `${api}/v1/memories`, { key, body: { content: `Citus account ${i} keeps its ledger`, agent_id: 'citus' } });
  const got = await expectStatus(200, 'GET', `${api2}/v1/memories/${memory.body.id}`, { key });
  check(got.body.content?.includes('ledger'), 'the memory read back on the other API', got.body);
  const node = sql(
    `SELECT n.nodename FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid)
      WHERE p.shardid = get_shard_id_for_distribution_column('memories', '${account.body.account_id}'::uuid)`,
  );
  nodes.set(account.body.account_id, node);
}
check(new Set(nodes.values()).size === 2, 'accounts on both workers', [...nodes.entries()]);
console.log(`citus: ${nodes.size} accounts, memories on ${[...new Set(nodes.values())].sort().join(' and ')}`);

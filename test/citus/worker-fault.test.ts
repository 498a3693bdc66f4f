import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp, waitFor } from '@ams/testing';

/**
 * A worker stops mid-traffic: its accounts' requests answer 503 with the error envelope (retry
 * later), the other worker's accounts are still read, nothing acknowledged is lost, and once the
 * worker is back its accounts are served again with no manual step. (A create of the other
 * worker's accounts answers 503 too while one is down: its CTE steps pass intermediate results
 * through every worker; docs/scaling.md, "What is not proven yet".)
 */
const CLUSTER = path.join(__dirname, '..', '..', 'infra', 'citus-cluster.sh');
const cluster = (...args: string[]) => execFileSync('bash', [CLUSTER, ...args], { stdio: 'ignore' });

describe('Citus: a worker down', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    cluster('start', 'worker2');
    await t.close();
  });

  /** The port of the worker holding `accountId`'s memories. */
  const portOf = async (accountId: string) =>
    Number(
      (await t.ctx.db.knex.raw(
        `SELECT nodeport FROM citus_shards WHERE table_name = 'memories'::regclass AND shardid = get_shard_id_for_distribution_column('memories', ?::uuid)`,
        [accountId],
      )).rows[0].nodeport,
    );
  async function accountOn(port: number): Promise<TestAccount & { acked: string[] }> {
    for (;;) {
      const a = await createAccount(t.ctx);
      if ((await portOf(a.accountId)) === port) return { ...a, acked: [] };
    }
  }
  const create = (a: TestAccount, content: string) => t.request().post('/v1/memories').set(bearer(a.key)).send({ agent_id: 'faults', content });

  it('answers 503 for the stopped worker’s accounts, still reads the others, and resumes once it is back', async () => {
    const down = await accountOn(9702);
    const up = await accountOn(9701);
    for (const a of [down, up]) a.acked.push((await create(a, 'before the stop').expect(201)).body.id);

    cluster('stop', 'worker2');
    try {
      const refused = await create(down, 'while the worker is down');
      expectError(refused, 503, 'service_unavailable');
      expect(refused.headers['retry-after']).toBe('5');
      expect((await t.request().get('/v1/memories').set(bearer(up.key)).expect(200)).body.data).toHaveLength(1);
      expect((await t.request().post('/v1/memories/search').set(bearer(up.key)).send({ query: 'before the stop', search_mode: 'keyword' }).expect(200)).body.data).toHaveLength(1);
    } finally {
      cluster('start', 'worker2');
    }

    await waitFor(async () => (await create(down, 'after the restart')).status === 201, 30_000);
    up.acked.push((await create(up, 'after the restart').expect(201)).body.id);
    const list = async (a: TestAccount) => ((await t.request().get('/v1/memories').set(bearer(a.key)).expect(200)).body.data as Array<{ id: string; content: string }>);
    expect((await list(down)).map((m) => m.content).sort()).toEqual(['after the restart', 'before the stop']);
    expect(new Set((await list(up)).map((m) => m.id))).toEqual(new Set(up.acked));
  }, 120_000);
});

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type supertest from 'supertest';
import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp, waitFor } from '@ams/testing';

/**
 * A worker stops while creates are under way: its accounts' requests answer 503 with the error
 * envelope and Retry-After (retry later), the other worker's accounts are still written and read,
 * nothing acknowledged is lost, and once the worker is back its accounts are served again with no
 * manual step.
 */
const CLUSTER = path.join(__dirname, '..', '..', 'infra', 'citus-cluster.sh');
const cluster = (...args: string[]) => execFileSync('bash', [CLUSTER, ...args], { stdio: 'ignore' });

interface Writer extends TestAccount {
  acked: string[];
  /** Every answer that was not a 201, in order. */
  refused: supertest.Response[];
}

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
  async function accountOn(port: number): Promise<Writer> {
    for (;;) {
      const a = await createAccount(t.ctx);
      if ((await portOf(a.accountId)) === port) return { ...a, acked: [], refused: [] };
    }
  }
  const create = (a: TestAccount, content: string) => t.request().post('/v1/memories').set(bearer(a.key)).send({ agent_id: 'faults', content });
  const stored = async (a: TestAccount) => new Set(((await t.ctx.db.knex.raw(`SELECT id FROM memories WHERE account_id = ?`, [a.accountId])).rows as Array<{ id: string }>).map((r) => r.id));

  it('answers 503 for the stopped worker’s accounts mid-write, serves the others, loses nothing acknowledged, and resumes once it is back', async () => {
    const down = await accountOn(9702);
    const up = await accountOn(9701);
    let writing = true;
    const write = async (a: Writer) => {
      for (let n = 0; writing; n++) {
        const res = await create(a, `write ${n}`);
        if (res.status === 201) a.acked.push(res.body.id);
        else a.refused.push(res);
      }
    };
    const writers = [write(down), write(up)];
    try {
      await waitFor(() => down.acked.length >= 3 && up.acked.length >= 3, 30_000, 'creates before the stop');
      cluster('stop', 'worker2');
      try {
        await waitFor(() => down.refused.length >= 2, 30_000, 'a refused create');
        const upBefore = up.acked.length;
        await waitFor(() => up.acked.length >= upBefore + 3, 30_000, 'the other worker’s account written while one is down');
        expect((await t.request().get('/v1/memories').set(bearer(up.key)).expect(200)).body.data.length).toBeGreaterThan(0);
        expect((await t.request().post('/v1/memories/search').set(bearer(up.key)).send({ query: 'write', search_mode: 'keyword' }).expect(200)).body.data.length).toBeGreaterThan(0);
      } finally {
        cluster('start', 'worker2');
      }
      // No manual step: the next creates of the stopped worker's account succeed.
      const downBefore = down.acked.length;
      await waitFor(() => down.acked.length >= downBefore + 3, 60_000, 'creates after the restart');
    } finally {
      writing = false;
      await Promise.all(writers);
    }

    // Every refusal is the 503 envelope with Retry-After; the other worker's account was never refused.
    for (const res of down.refused) {
      expectError(res, 503, 'service_unavailable');
      expect(res.headers['retry-after']).toBe('5');
    }
    expect(up.refused.map((r) => r.status)).toEqual([]);
    // Nothing acknowledged is lost (a refused create may have been stored: only acknowledged ones must be).
    for (const a of [down, up]) {
      const ids = await stored(a);
      expect(a.acked.filter((id) => !ids.has(id))).toEqual([]);
    }
  }, 180_000);
});

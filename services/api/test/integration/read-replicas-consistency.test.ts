import crypto from 'node:crypto';
import { bearer, createAccount, createTestApp, operatorKey, replicaUrlOf, setReplicaApplyDelay, TestAccount, TestApp, waitFor } from '@ams/testing';

/**
 * Reads served by a real streaming replica of the test cluster (scripts/test-replica.sh), held back
 * with recovery_min_apply_delay: a key always reads its own writes, another key may not, and a
 * replica past the staleness bound is skipped. In the `processes` project: the delay is the whole
 * replica's, so no other replica suite may run meanwhile.
 */
const MODES = ['keyword', 'semantic', 'hybrid'] as const;
const token = () => `rpl${crypto.randomBytes(6).toString('hex')}`;

describe('reads on a streaming replica', () => {
  let t: TestApp;
  let acct: TestAccount;
  let other: string;
  const replicaState = async () => (await t.request().get('/v1/health')).body.replicas?.[0]?.state as string | undefined;
  const create = async (content: string, key = acct.key) => {
    const res = await t.request().post('/v1/memories').set(bearer(key)).send({ content, agent_id: 'replica-reader' });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const found = async (key: string, query: string, id: string, mode: (typeof MODES)[number] = 'keyword') => {
    const res = await t.request().post('/v1/memories/search').set(bearer(key)).send({ query, search_mode: mode, limit: 5 });
    expect(res.status).toBe(200);
    return (res.body.data as Array<{ memory: { id: string } }>).some((d) => d.memory.id === id);
  };

  afterEach(() => setReplicaApplyDelay(0));
  afterAll(async () => {
    await setReplicaApplyDelay(0);
    await t?.close();
  });

  describe('within the staleness bound', () => {
    beforeAll(async () => {
      t = await createTestApp({ DATABASE_REPLICA_URLS: replicaUrlOf(), DATABASE_REPLICA_MAX_LAG_MS: '60000', DATABASE_REPLICA_CHECK_INTERVAL_MS: '100' });
      acct = await createAccount(t.ctx);
      other = await acct.keyWith(['read']);
      await waitFor(async () => (await replicaState()) === 'up', 30_000, 'the replica in rotation');
    });

    it('serves reads from the replica once it has replayed the key’s writes', async () => {
      const word = token();
      const id = await create(`a note about ${word}`);
      const routing = t.ctx.readRouting!;
      const before = routing.routed.replica;
      await waitFor(async () => (await found(acct.key, word, id)) && routing.routed.replica > before, 15_000, 'a search answered by the replica');
      expect(await found(other, word, id)).toBe(true);
    });

    it('shows the replica’s state and lag in health and /metrics', async () => {
      const [replica] = (await t.request().get('/v1/health')).body.replicas;
      expect(replica).toMatchObject({ name: expect.stringMatching(/^127\.0\.0\.1:\d+\/ams_test_/), state: 'up' });
      expect(replica.lag_ms).toBeGreaterThanOrEqual(0);
      expect(replica.lag_ms).toBeLessThan(60_000);
      const text = (await t.request().get('/metrics').set(bearer(await operatorKey(t.ctx)))).text;
      const label = `replica="${replica.name}"`;
      expect(text).toContain(`ams_db_replica_state{${label},state="up"} 1`);
      expect(text).toContain(`ams_db_replica_state{${label},state="down"} 0`);
      expect(text).toMatch(new RegExp(`ams_db_replica_lag_seconds\\{${label.replace(/[.]/g, '\\.')}\\} \\d`));
      expect(text).toMatch(/ams_db_reads_routed_total\{route="replica"\} [1-9]/);
    });

    it('a create then an immediate search by the same key always finds it (1,000 times, replica 2 s behind); another key’s may not', async () => {
      await setReplicaApplyDelay(2_000);
      const routing = t.ctx.readRouting!;
      let missedByOther = 0;
      for (let i = 0; i < 1_000; i++) {
        const word = token();
        const content = `iteration ${i} remembers ${word}`;
        const id = await create(content);
        const mode = MODES[i % MODES.length];
        // The whole content as the query: its own vector is the nearest, so a miss can only be a
        // read that did not see the write (a bare token among hundreds of look-alike notes could
        // fall outside an approximate nearest-neighbour top 5 on the primary too).
        if (!(await found(acct.key, content, id, mode))) throw new Error(`iteration ${i}: the key's own ${mode} search missed the memory it had just created`);
        if (i % 100 === 0 && !(await found(other, word, id))) missedByOther++;
      }
      // The other key read the replica, 2 s behind: it had not seen the new memories.
      expect(missedByOther).toBeGreaterThan(0);
      expect(routing.routed.replica).toBeGreaterThan(0);
      expect(routing.routed.own_write).toBeGreaterThan(0);
    }, 300_000);
  });

  describe('past the staleness bound', () => {
    beforeAll(async () => {
      await t?.close();
      t = await createTestApp({ DATABASE_REPLICA_URLS: replicaUrlOf(), DATABASE_REPLICA_MAX_LAG_MS: '1000', DATABASE_REPLICA_CHECK_INTERVAL_MS: '100' });
      acct = await createAccount(t.ctx);
      other = await acct.keyWith(['read']);
      await waitFor(async () => (await replicaState()) === 'up', 30_000, 'the replica in rotation');
    });

    it('skips a replica further behind than DATABASE_REPLICA_MAX_LAG_MS, and takes it back once it catches up', async () => {
      await setReplicaApplyDelay(8_000);
      // Writes keep coming while the replica holds them back: its lag passes the bound.
      let word = token();
      let id = '';
      await waitFor(async () => {
        word = token();
        id = await create(`lagging ${word}`);
        return (await replicaState()) === 'lagging';
      }, 20_000, 'the replica out of rotation', 100);
      const health = (await t.request().get('/v1/health')).body;
      expect(health.status).toBe('healthy');
      expect(health.replicas[0].lag_ms).toBeGreaterThan(1000);
      // Another key's read no longer goes there: it sees the write at once.
      const routed = t.ctx.readRouting!.routed.no_replica;
      expect(await found(other, word, id)).toBe(true);
      expect(t.ctx.readRouting!.routed.no_replica).toBe(routed + 1);

      await setReplicaApplyDelay(0);
      await waitFor(async () => (await replicaState()) === 'up', 30_000, 'the replica back in rotation');
    }, 60_000);
  });
});

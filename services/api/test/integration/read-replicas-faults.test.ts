import { bearer, createAccount, createTestApp, freePort, replicaAnswers, replicaServer, replicaUrlOf, TestAccount, TestApp, waitFor } from '@ams/testing';

/**
 * The test replica (scripts/test-replica.sh) stopped while reads and writes keep coming: no
 * request fails, the replica leaves rotation within seconds, and rejoins once it is back. In the
 * `processes` project: it stops the replica every replica suite reads.
 */
describe('a read replica going away under load', () => {
  let t: TestApp;
  let acct: TestAccount;
  let readers: string[];
  let memoryId: string;
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  const state = async () => (await t.request().get('/v1/health')).body.replicas?.[0]?.state as string | undefined;

  beforeAll(async () => {
    t = await createTestApp({ DATABASE_REPLICA_URLS: replicaUrlOf(), DATABASE_REPLICA_MAX_LAG_MS: '5000', DATABASE_REPLICA_CHECK_INTERVAL_MS: '100' });
    acct = await createAccount(t.ctx);
    readers = await Promise.all([1, 2, 3].map(() => acct.keyWith(['read'])));
    for (const content of ['replicas keep reads off the primary', 'a standby replays the primary WAL', 'failover keeps serving reads']) {
      memoryId = (await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content, agent_id: 'faults' })).body.id;
    }
    await waitFor(async () => (await state()) === 'up', 30_000, 'the replica in rotation');
  });

  afterAll(async () => {
    await replicaServer('resume').catch(() => undefined);
    if (!(await replicaAnswers())) await replicaServer('start');
    await t?.close();
  });

  /** Reads of every kind by read-only keys (so they may go to the replica), and a writer, until `stop()`. */
  function load(): { stop(): Promise<void> } {
    let running = true;
    const record = async (req: Promise<{ status: number; text: string }>, what: string) => {
      const res = await req;
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status >= 500) failures.push(`${what}: ${res.status} ${res.text.slice(0, 200)}`);
    };
    const reads = [
      (key: string) => record(t.request().post('/v1/memories/search').set(bearer(key)).send({ query: 'replica reads', search_mode: 'hybrid' }), 'hybrid search'),
      (key: string) => record(t.request().post('/v1/memories/search').set(bearer(key)).send({ query: 'standby', search_mode: 'keyword' }), 'keyword search'),
      (key: string) => record(t.request().post('/v1/memories/search').set(bearer(key)).send({ query: 'failover', search_mode: 'semantic' }), 'semantic search'),
      (key: string) => record(t.request().get('/v1/memories?limit=5').set(bearer(key)), 'list'),
      (key: string) => record(t.request().get(`/v1/memories/${memoryId}`).set(bearer(key)), 'get'),
      (key: string) => record(t.request().get('/v1/agents/faults/stats').set(bearer(key)), 'stats'),
      (key: string) => record(t.request().post('/v2/context/build').set(bearer(key)).send({ query: 'replica' }), 'context build'),
    ];
    const loops = [
      ...readers.map(async (key, k) => {
        for (let i = k; running; i++) await reads[i % reads.length]!(key);
      }),
      (async () => {
        for (let i = 0; running; i++) await record(t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: `written under load ${i}`, agent_id: 'faults' }), 'create');
      })(),
    ];
    return {
      async stop() {
        running = false;
        await Promise.all(loops);
      },
    };
  }

  it('answers every request while the replica stops, takes it out of rotation within seconds, and back once it returns', async () => {
    const routing = t.ctx.readRouting!;
    const traffic = load();
    try {
      const before = routing.routed.replica;
      await waitFor(() => routing.routed.replica > before + 20, 20_000, 'reads served by the replica');
      const stoppedAt = Date.now();
      await replicaServer('stop');
      await waitFor(async () => (await state()) === 'down', 10_000, 'the replica out of rotation');
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
      // Reads keep coming while it is away: all on the primary.
      const away = routing.routed.no_replica;
      await waitFor(() => routing.routed.no_replica > away + 20, 20_000, 'reads served by the primary');
      expect((await t.request().get('/v1/health')).body.status).toBe('healthy');

      await replicaServer('start');
      await waitFor(async () => (await state()) === 'up', 30_000, 'the replica back in rotation');
      const back = routing.routed.replica;
      await waitFor(() => routing.routed.replica > back + 20, 20_000, 'reads served by the replica again');
    } finally {
      await traffic.stop();
    }
    expect(failures).toEqual([]);
    expect([...statuses.keys()].every((s) => s < 500)).toBe(true);
  }, 180_000);

  it('answers every request while the replica hangs with its sessions open, cutting the reads running there', async () => {
    const routing = t.ctx.readRouting!;
    statuses.clear();
    failures.length = 0;
    await waitFor(async () => (await state()) === 'up', 30_000, 'the replica in rotation');
    const traffic = load();
    try {
      const before = routing.routed.replica;
      await waitFor(() => routing.routed.replica > before + 20, 20_000, 'reads served by the replica');
      await replicaServer('pause');
      try {
        await waitFor(async () => (await state()) === 'down', 15_000, 'the hung replica out of rotation');
        const away = routing.routed.no_replica;
        await waitFor(() => routing.routed.no_replica > away + 20, 20_000, 'reads served by the primary');
      } finally {
        await replicaServer('resume');
      }
      await waitFor(async () => (await state()) === 'up', 30_000, 'the replica back in rotation');
    } finally {
      await traffic.stop();
    }
    expect(failures).toEqual([]);
    expect([...statuses.keys()].every((s) => s < 500)).toBe(true);
  }, 180_000);

  it('a read routed to the replica just before it hung, on a connection idle until then, is answered by the primary', async () => {
    await waitFor(async () => (await state()) === 'up', 30_000, 'the replica in rotation');
    const replica = t.ctx.readRouting!.replicas.reader()!;
    // A connection in the replica's pool, idle when the replica hangs.
    expect((await replica.raw('select pg_is_in_recovery() as standby')).rows[0].standby).toBe(true);
    await replicaServer('pause');
    try {
      await waitFor(async () => (await state()) === 'down', 15_000, 'the hung replica out of rotation');
      // Taken out of rotation, its idle connections went with it: this read reconnects within the
      // replica timeout or goes to the primary, instead of waiting on the hung replica.
      const read = replica.raw('select pg_is_in_recovery() as standby').then((r) => r.rows[0].standby as boolean);
      const waited = new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 10_000).unref());
      expect(await Promise.race([read, waited])).toBe(false);
    } finally {
      await replicaServer('resume');
    }
  });

  it('starts and serves with a replica that never answered: down in health, every read on the primary', async () => {
    const unreachable = `postgres://postgres@127.0.0.1:${await freePort()}/ams`;
    const app = await createTestApp({ DATABASE_REPLICA_URLS: unreachable, DATABASE_REPLICA_CHECK_INTERVAL_MS: '100' });
    try {
      const owner = await createAccount(app.ctx);
      const reader = await owner.keyWith(['read']);
      const health = (await app.request().get('/v1/health')).body;
      expect(health.status).toBe('healthy');
      expect(health.replicas).toEqual([expect.objectContaining({ name: expect.stringMatching(/^127\.0\.0\.1:\d+\/ams$/), state: 'down', lag_ms: null, error: expect.any(String) })]);
      const res = await app.request().post('/v1/memories/search').set(bearer(reader)).send({ query: 'anything' });
      expect(res.status).toBe(200);
      expect(app.ctx.readRouting!.routed).toMatchObject({ replica: 0, no_replica: 1 });
    } finally {
      await app.close();
    }
  });
});

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { createDatabase, createPostgresDatabase, Database, dropPostgresDatabase, migrateLatest } from '@ams/db';
import { bearer, createAccount, createTestApp, TestAccount, TestApp } from '@ams/testing';

/**
 * Growing the cluster while it serves: a third worker joins and citus_rebalance_start moves shards
 * onto it (logical replication, writes go on) while creates and searches run. No acknowledged write
 * is lost, no search answers another account's memory or misses one acknowledged before it began,
 * and the counts agree afterwards.
 */
const ROOT = path.join(__dirname, '..', '..');
const NEW_WORKER_PORT = 9703;

describe('Citus: adding a worker and rebalancing while writes and searches run', () => {
  let db: Database;
  let name: string;
  let t: TestApp;
  let adminUrl: string;

  beforeAll(async () => {
    // The cluster gets its third worker (idempotent); this test's database starts without it.
    execFileSync('bash', [path.join(ROOT, 'infra/citus-cluster.sh'), 'up'], { env: { ...process.env, CITUS_WORKERS: '3' }, stdio: 'ignore' });
    const workerUrl = new URL(process.env.DATABASE_URL!);
    name = `${workerUrl.pathname.slice(1)}_rebalance`;
    workerUrl.pathname = '/postgres';
    adminUrl = workerUrl.toString();
    const url = await createPostgresDatabase(adminUrl, name, { citusShardCount: 6, citusUnregisteredPorts: [NEW_WORKER_PORT] });
    db = await createDatabase({ databaseUrl: url, dataDir: '', dbPoolMax: 4 });
    await migrateLatest(db.knex);
    t = await createTestApp({ DATABASE_URL: url });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await db?.close();
    if (name) await dropPostgresDatabase(adminUrl, name);
  });

  const placementsOn = async (port: number) =>
    Number((await db.knex.raw(`SELECT count(*) AS n FROM pg_dist_shard_placement WHERE nodeport = ?`, [port])).rows[0].n);

  it('moves shards to the new worker; every acknowledged write is there and every search is right', async () => {
    // Notes come in groups of GROUP, each group with a word of its own, so that a search for one group's
    // word has fewer matches than its limit: every acknowledged note of the group must be in its answer.
    const GROUP = 40;
    const accounts: Array<TestAccount & { word: string; acked: string[][] }> = [];
    for (let i = 0; i < 6; i++) accounts.push({ ...(await createAccount(t.ctx)), word: `zebrafinch${i}`, acked: [] });
    const groupWord = (a: (typeof accounts)[number], group: number) => `${a.word}g${group}`;
    const create = async (a: (typeof accounts)[number], n: number) => {
      const group = Math.floor(n / GROUP);
      const res = await t.request().post('/v1/memories').set(bearer(a.key)).send({ agent_id: 'mover', content: `${a.word} ${groupWord(a, group)} note ${n}` });
      if (res.status === 201) (a.acked[group] ??= []).push(res.body.id);
      return res.status;
    };
    for (const a of accounts) for (let n = 0; n < 5; n++) await create(a, n);
    expect(await placementsOn(NEW_WORKER_PORT)).toBe(0);

    let moving = true;
    const statuses = new Map<number, number>();
    const wrong: string[] = [];
    const writer = async () => {
      for (let n = 5; moving; n++) {
        for (const a of accounts) {
          const status = await create(a, n);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }
    };
    const searcher = async () => {
      for (let round = 0; moving; round++) {
        for (const a of accounts) {
          // Mostly the group being written now; every fourth round an older one.
          const group = round % 4 ? a.acked.length - 1 : round % a.acked.length;
          const before = [...(a.acked[group] ?? [])];
          const res = await t.request().post('/v1/memories/search').set(bearer(a.key)).send({ query: groupWord(a, group), search_mode: 'keyword', limit: 100 });
          if (res.status !== 200) {
            wrong.push(`search ${res.status}`);
            continue;
          }
          const ids = new Set((res.body.data as Array<{ memory: { id: string; content: string } }>).map((r) => r.memory.id));
          const foreign = (res.body.data as Array<{ memory: { content: string } }>).filter((r) => !r.memory.content.startsWith(a.word));
          if (foreign.length) wrong.push(`another account's memory in ${a.word}'s search`);
          const missing = before.filter((id) => !ids.has(id));
          if (missing.length) wrong.push(`${groupWord(a, group)}: ${missing.length} acknowledged memories missing`);
        }
      }
    };
    const loops = [writer(), searcher()];

    await db.knex.raw(`SELECT citus_add_node('127.0.0.1', ?)`, [NEW_WORKER_PORT]);
    await db.knex.raw(`SELECT citus_rebalance_start()`);
    try {
      const deadline = Date.now() + 240_000;
      for (;;) {
        const { rows } = await db.knex.raw(`SELECT state FROM citus_rebalance_status()`);
        if (['finished', 'failed', 'cancelled'].includes(rows[0]?.state)) {
          expect(rows[0].state).toBe('finished');
          break;
        }
        if (Date.now() > deadline) throw new Error('the rebalance did not finish within 240 s');
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    } finally {
      moving = false;
      await Promise.all(loops);
    }

    expect(await placementsOn(NEW_WORKER_PORT)).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
    expect([...statuses.keys()].filter((s) => s !== 201)).toEqual([]);
    for (const a of accounts) {
      const { rows } = await db.knex.raw(`SELECT id FROM memories WHERE account_id = ?`, [a.accountId]);
      expect(new Set(rows.map((r: { id: string }) => r.id))).toEqual(new Set(a.acked.flat()));
    }
  }, 300_000);
});

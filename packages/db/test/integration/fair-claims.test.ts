import crypto from 'node:crypto';
import { createDatabase, createPostgresDatabase, Database, dropPostgresDatabase, embeddingQueueRepository, migrateLatest, MemoryRow, webhookDeliveriesRepository } from '../../src';
import { insertMemories, tenant } from './fixtures';

/**
 * Claims across accounts (the embedding worker's and the webhook dispatcher's, unscoped): shared
 * over the accounts with work waiting, and each item claimed once however many claim at the same
 * time. In a database of their own, so no other test's rows take a share. On Citus (TEST_BACKEND=citus)
 * the accounts sit on different shards and every claim statement is single-shard.
 */
describe('claims across accounts', () => {
  // Beside the jest worker's database, named after it (the run's teardown drops what a failed run leaves).
  const admin = new URL(process.env.DATABASE_URL!);
  const name = `${admin.pathname.slice(1)}_fair_claims`;
  admin.pathname = '/postgres';
  let db: Database;
  beforeAll(async () => {
    const url = await createPostgresDatabase(admin.toString(), name, { citusShardCount: 4 });
    db = await createDatabase({ databaseUrl: url, dataDir: '', dbPoolMax: 6 });
    await migrateLatest(db.knex);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
    await dropPostgresDatabase(admin.toString(), name);
  });

  const claim = (limit: number) => embeddingQueueRepository.claim(db.knex, { limit, stuckAfterMs: 60_000, maxAttempts: 3 });
  const pendingOf = async (n: number) => {
    const t = await tenant(db);
    const rows: MemoryRow[] = [];
    for (let i = 0; i < n; i += 500) {
      rows.push(...(await insertMemories(db, t, Array.from({ length: Math.min(500, n - i) }, () => ({ embedding: null, embeddingModel: null, embeddingStatus: 'pending' as const })))));
    }
    return { ...t, rows };
  };
  const countBy = (rows: Array<{ account_id: string }>) => rows.reduce((m, r) => m.set(r.account_id, (m.get(r.account_id) ?? 0) + 1), new Map<string, number>());
  const drain = async (limit: number) => {
    const claimed: MemoryRow[] = [];
    for (let got = await claim(limit); got.length; got = await claim(limit)) claimed.push(...got);
    return claimed;
  };

  it("one account's 3,000-memory backlog does not hold back another account's single memory", async () => {
    const big = await pendingOf(3_000);
    const small = await pendingOf(1);
    // The old single claim took the 16 oldest: all the big account's, 188 batches before the small one's.
    const first = await claim(16);
    expect(first).toHaveLength(16);
    expect(first.map((r) => r.id)).toContain(small.rows[0]!.id);
    expect(countBy(first).get(big.accountId)).toBe(15);
    await drain(500);
  });

  it('shares a claim equally among the accounts waiting, and passes on what one cannot use', async () => {
    const [a, b, c] = [await pendingOf(10), await pendingOf(10), await pendingOf(2)];
    const first = countBy(await claim(12));
    expect([first.get(a.accountId), first.get(b.accountId), first.get(c.accountId)]).toEqual([5, 5, 2]);
    const second = countBy(await claim(12));
    expect([second.get(a.accountId), second.get(b.accountId), second.get(c.accountId)]).toEqual([5, 5, undefined]);
    expect(await claim(12)).toEqual([]);
  });

  it('two workers claiming at once take every memory of every account exactly once', async () => {
    const accounts = [await pendingOf(120), await pendingOf(7), await pendingOf(1)];
    const [one, two] = await Promise.all([drain(8), drain(8)]);
    const ids = [...one, ...two].map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set(accounts.flatMap((t) => t.rows.map((r) => r.id))));
  });

  it("webhook deliveries: one account's flood does not hold back another's, and two dispatchers claim each once", async () => {
    const oneShots = async (n: number) => {
      const t = await tenant(db);
      const events = Array.from({ length: n }, () => ({ accountId: t.accountId, type: 'memory.created' as const, data: {}, eventId: crypto.randomUUID(), createdAt: new Date(), url: 'https://example.com/hook' }));
      await webhookDeliveriesRepository.recordOneShots(db.knex, events);
      return t;
    };
    const flood = await oneShots(400);
    const single = await oneShots(1);
    const first = await webhookDeliveriesRepository.claimDue(db.knex, 60_000, 10);
    expect(countBy(first).get(single.accountId)).toBe(1);
    expect(countBy(first).get(flood.accountId)).toBe(9);
    const take = async () => {
      const got: string[] = [];
      for (let c = await webhookDeliveriesRepository.claimDue(db.knex, 60_000, 25); c.length; c = await webhookDeliveriesRepository.claimDue(db.knex, 60_000, 25)) got.push(...c.map((d) => d.id));
      return got;
    };
    const [x, y] = await Promise.all([take(), take()]);
    expect(new Set([...x, ...y]).size).toBe(x.length + y.length);
    expect(x.length + y.length).toBe(391);
  });
});

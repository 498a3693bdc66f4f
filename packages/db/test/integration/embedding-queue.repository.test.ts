import { Database, embeddingQueueRepository, memoriesRepository, MemoryRow } from '../../src';
import { axis, insertMemories, openRunDatabase, tenant } from './fixtures';

/** Claims and their fences, on the run's PostgreSQL; every claim is scoped to the test's own memories. */
describe('embeddingQueueRepository: claims and fences', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openRunDatabase();
  });
  afterAll(() => db.close());

  async function pending(n: number) {
    const t = await tenant(db);
    const rows = await insertMemories(db, t, Array.from({ length: n }, () => ({ embedding: null, embeddingModel: null, embeddingStatus: 'pending' as const })));
    const only = { accountId: t.accountId, ids: rows.map((r) => r.id) };
    const claim = (o: { limit?: number; stuckAfterMs?: number; maxAttempts?: number } = {}) =>
      embeddingQueueRepository.claim(db.knex, { limit: o.limit ?? 10, stuckAfterMs: o.stuckAfterMs ?? 60_000, maxAttempts: o.maxAttempts ?? 3, only });
    const status = async (id: string) => (await memoriesRepository.findAny(db.knex, t.accountId, id))!;
    return { t, rows, claim, status };
  }
  const complete = (rows: MemoryRow[]) => embeddingQueueRepository.completeMany(db.knex, rows.map((row) => ({ row, vector: axis(1) })), 'test-model');

  it('claims each pending memory once, even when two workers claim at the same moment (SKIP LOCKED)', async () => {
    const { claim } = await pending(6);
    const [a, b] = await Promise.all([claim({ limit: 4 }), claim({ limit: 4 })]);
    const ids = [...a, ...b].map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(6);
    expect([...a, ...b].every((r) => r.embedding_status === 'processing' && r.embedding_attempts === 1)).toBe(true);
    expect(await claim()).toEqual([]);
  });

  it('stores a result only while the claim holds: a re-claimed row rejects the old claim', async () => {
    const { claim, status } = await pending(1);
    const [first] = await claim();
    // stuckAfterMs 0: the first claim looks dead at once, so the row is claimed again.
    const [second] = await claim({ stuckAfterMs: 0 });
    expect(second).toMatchObject({ id: first!.id, embedding_attempts: 2 });
    expect(await complete([first!])).toEqual([]);
    expect(await embeddingQueueRepository.fail(db.knex, first!, 'late failure', null)).toBe(false);
    expect((await status(first!.id)).embedding_status).toBe('processing');
    expect((await complete([second!])).map((r) => r.id)).toEqual([first!.id]);
    expect(await status(first!.id)).toMatchObject({ embedding_status: 'ready', embedding_model: 'test-model' });
  });

  it('a released claim counts its attempt, so its late outcome cannot pass the fence', async () => {
    const { claim, status } = await pending(1);
    const [first] = await claim();
    await embeddingQueueRepository.release(db.knex, [first!]);
    expect((await status(first!.id)).embedding_status).toBe('pending');
    const [again] = await claim();
    expect(again!.embedding_attempts).toBe(2);
    expect(await complete([first!])).toEqual([]);
    expect(await complete([again!])).toHaveLength(1);
  });

  it('backs a failure off until retry_at, and fails for good without one', async () => {
    const { claim, status } = await pending(2);
    const [a, b] = await claim();
    expect(await embeddingQueueRepository.fail(db.knex, a!, 'try later', new Date(Date.now() + 3_600_000))).toBe(true);
    expect(await embeddingQueueRepository.fail(db.knex, b!, 'broken', null)).toBe(true);
    expect(await claim()).toEqual([]); // a waits for its backoff, b is done
    expect(await status(a!.id)).toMatchObject({ embedding_status: 'pending', embedding_error: 'try later' });
    expect(await status(b!.id)).toMatchObject({ embedding_status: 'failed', embedding_error: 'broken' });
  });

  it('requeue gives a failed memory a fresh budget without resetting the attempt count that fences claims', async () => {
    const { t, claim, status } = await pending(1);
    const [row] = await claim({ maxAttempts: 1 });
    await embeddingQueueRepository.fail(db.knex, row!, 'broken', null);
    const requeued = await embeddingQueueRepository.requeue(db.knex, t.accountId, row!.id, 'failed');
    expect(requeued).toMatchObject({ embedding_status: 'pending', embedding_attempts: 1, embedding_attempts_base: 1 });
    const [again] = await claim({ maxAttempts: 1 });
    expect(again!.embedding_attempts).toBe(2);
    expect(await embeddingQueueRepository.requeue(db.knex, t.accountId, row!.id, 'failed')).toBeUndefined(); // processing, not failed
    expect((await status(row!.id)).embedding_status).toBe('processing');
  });

  it('a claim whose worker died on every attempt is not claimed again; failAbandoned ends it, in every account', async () => {
    const [one, other] = [await pending(1), await pending(1)];
    const [row] = await one.claim({ maxAttempts: 1 });
    const [otherRow] = await other.claim({ maxAttempts: 1 });
    expect(await one.claim({ stuckAfterMs: 0, maxAttempts: 1 })).toEqual([]);
    // Stuck but with attempts left: claimed again later, not failed.
    await embeddingQueueRepository.failAbandoned(db.knex, 0, 2);
    expect((await one.status(row!.id)).embedding_status).toBe('processing');
    // Other runs' rows may be abandoned too: at least these two.
    expect(await embeddingQueueRepository.failAbandoned(db.knex, 0, 1)).toBeGreaterThanOrEqual(2);
    expect(await one.status(row!.id)).toMatchObject({ embedding_status: 'failed', embedding_error: 'the worker stopped during each of 1 attempts' });
    expect(await other.status(otherRow!.id)).toMatchObject({ embedding_status: 'failed' });
  });

  it('the heartbeat skips rows a storing batch holds instead of waiting on them (it could deadlock with that batch)', async () => {
    const { claim, status } = await pending(2);
    const [a, b] = await claim();
    const before = async (id: string) => ((await db.knex('memories').where({ id }).first('embedding_started_at')).embedding_started_at as Date).getTime();
    const [startedA, startedB] = [await before(a!.id), await before(b!.id)];
    await db.knex.transaction(async (trx) => {
      // The batch storing b holds its row lock; a beat over a and b must not wait for it.
      await embeddingQueueRepository.completeMany(trx, [{ row: b!, vector: axis(1) }], 'test-model');
      await embeddingQueueRepository.heartbeat(db.knex, [a!, b!]);
      // ...and the batch then takes the row the beat touched, which would close a wait cycle.
      expect(await embeddingQueueRepository.completeMany(trx, [{ row: a!, vector: axis(2) }], 'test-model')).toHaveLength(1);
    });
    expect(await before(a!.id)).toBeGreaterThanOrEqual(startedA);
    expect(await before(b!.id)).toBe(startedB);
    expect((await status(a!.id)).embedding_status).toBe('ready');
    expect((await status(b!.id)).embedding_status).toBe('ready');
  });
});

import { retieringLoop } from '@ams/ingestion';
import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp, waitFor } from '@ams/testing';

const DAY_MS = 86_400_000;

describe('re-tiering by use and age', () => {
  let t: TestApp;
  let acct: TestAccount;
  const req = () => t.request();
  const post = (body: object) => req().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'tiers', ...body });
  const get = async (id: string) => (await req().get(`/v1/memories/${id}`).set(bearer(acct.key))).body;
  const run = async () => {
    const res = await req().post('/v1/retiering/run').set(bearer(acct.key));
    expect(res.status).toBe(200);
    return res.body;
  };
  /** Places a memory in time: created (and last touched) `days` ago. */
  const age = (id: string, days: number) =>
    t.ctx.db.knex('memories').where({ account_id: acct.accountId, id }).update({ created_at: new Date(Date.now() - days * DAY_MS) });

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  describe('settings', () => {
    it('are off with the documented defaults until an admin saves some', async () => {
      const res = await req().get('/v1/retiering').set(bearer(acct.key));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        object: 'retiering_settings',
        enabled: false,
        promote_recalls: 3,
        promote_window_days: 7,
        demote_after_days: 30,
        interval_seconds: expect.any(Number),
        last_run_at: null,
        last_run_moved: null,
      });
      const saved = await req().patch('/v1/retiering').set(bearer(acct.key)).send({ demote_after_days: 20 });
      expect(saved.body).toMatchObject({ enabled: false, demote_after_days: 20, promote_recalls: 3 });
    });

    it('take an admin key to change, and refuse bad values with a precise message', async () => {
      const readWrite = await acct.keyWith(['read', 'write']);
      expect((await req().get('/v1/retiering').set(bearer(readWrite))).status).toBe(200);
      expectError(await req().patch('/v1/retiering').set(bearer(readWrite)).send({ enabled: true }), 403, 'authorization_error');
      expectError(await req().post('/v1/retiering/run').set(bearer(readWrite)), 403, 'authorization_error');
      const bad = await req().patch('/v1/retiering').set(bearer(acct.key)).send({ promote_recalls: 0, demote_after_days: 'soon' });
      expectError(bad, 422, 'validation_error');
      expect(bad.body.details).toEqual([
        { field: 'promote_recalls', message: 'promote_recalls must be greater than or equal to 1' },
        { field: 'demote_after_days', message: 'demote_after_days must be a number' },
      ]);
      const empty = await req().patch('/v1/retiering').set(bearer(acct.key)).send({});
      expectError(empty, 422, 'validation_error');
      expect(empty.body.details[0].message).toBe('Request body must change at least one setting');
    });
  });

  describe('rules', () => {
    beforeAll(async () => {
      await req().patch('/v1/retiering').set(bearer(acct.key)).send({ promote_recalls: 2, promote_window_days: 7, demote_after_days: 30 });
    });

    it('recent recall promotes one step a run, each move logged and listed', async () => {
      const m = await post({ content: 'The llama farm ships wool every spring', importance: 0.1 });
      expect(m.body).toMatchObject({ tier: 'cold', tier_pinned: false });
      for (let i = 0; i < 2; i++) {
        const found = await req().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'llama wool', agent_id: 'tiers', limit: 1 });
        expect(found.body.data[0].memory.id).toBe(m.body.id);
      }
      // A context build records its recalls too.
      await req().post('/v2/context/build').set(bearer(acct.key)).send({ query: 'llama wool', agent_id: 'tiers', threshold: 0, limit: 1 });
      const outcome = await run();
      expect(outcome).toMatchObject({ object: 'retiering_run', promoted: expect.any(Number), recalls_folded: expect.any(Number) });
      expect((await get(m.body.id)).tier).toBe('warm');
      expect((await run()).recalls_folded).toBe(0);
      // Still recalled often enough: the next run promotes again.
      expect((await get(m.body.id)).tier).toBe('hot');
      const moves = await req().get(`/v1/retiering/moves?memory_id=${m.body.id}`).set(bearer(acct.key));
      expect(moves.status).toBe(200);
      expect(moves.body).toMatchObject({ object: 'list', has_more: false, total_count: 2 });
      expect(moves.body.data.map((x: { from: string; to: string; reason: string }) => [x.from, x.to, x.reason])).toEqual([
        ['warm', 'hot', 'recalled'],
        ['cold', 'warm', 'recalled'],
      ]);
    });

    it('long disuse demotes one step, importance stretches the wait and keeps an important memory warm', async () => {
      const plain = await post({ content: 'The printer on floor two jams on glossy paper', importance: 0.5 });
      const important = await post({ content: 'The production database password rotates quarterly', importance: 0.9 });
      expect([plain.body.tier, important.body.tier]).toEqual(['warm', 'hot']);
      // 40 days idle: past 30 × 1.0 for importance 0… but not past 30 × 1.5 for importance 0.5.
      await age(plain.body.id, 40);
      await age(important.body.id, 40);
      await run();
      expect((await get(plain.body.id)).tier).toBe('warm');
      expect((await get(important.body.id)).tier).toBe('hot');
      await age(plain.body.id, 50);
      await age(important.body.id, 60);
      await run();
      expect((await get(plain.body.id)).tier).toBe('cold');
      expect((await get(important.body.id)).tier).toBe('warm');
      // Moved just now: it waits a whole disuse period again, and never drops below warm anyway.
      await age(important.body.id, 400);
      await run();
      expect((await get(important.body.id)).tier).toBe('warm');
    });

    it('a pinned tier never moves, however used or unused; unpinning lets it move', async () => {
      const pinnedIdle = await post({ content: 'Pinned hot note about the quarterly board meeting', tier: 'hot', importance: 0.1 });
      const pinnedUsed = await post({ content: 'Pinned cold note about zebra crossings near the office', tier: 'cold' });
      expect(pinnedIdle.body.tier_pinned).toBe(true);
      await age(pinnedIdle.body.id, 1_000);
      for (let i = 0; i < 5; i++) await req().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'zebra crossings', agent_id: 'tiers', limit: 1 });
      for (let i = 0; i < 3; i++) await run();
      expect(await get(pinnedIdle.body.id)).toMatchObject({ tier: 'hot', tier_pinned: true });
      expect(await get(pinnedUsed.body.id)).toMatchObject({ tier: 'cold', tier_pinned: true });
      const moves = await req().get(`/v1/retiering/moves?memory_id=${pinnedIdle.body.id}`).set(bearer(acct.key));
      expect(moves.body.data).toEqual([]);

      const unpinned = await req().patch(`/v1/memories/${pinnedIdle.body.id}`).set(bearer(acct.key)).send({ tier_pinned: false });
      expect(unpinned.body).toMatchObject({ tier: 'hot', tier_pinned: false });
      await run();
      expect((await get(pinnedIdle.body.id)).tier).toBe('warm');
      // Setting a tier pins it again.
      const repinned = await req().patch(`/v1/memories/${pinnedIdle.body.id}`).set(bearer(acct.key)).send({ tier: 'hot' });
      expect(repinned.body).toMatchObject({ tier: 'hot', tier_pinned: true });
    });

    it('announces each move as memory.updated with the move, in the outbox', async () => {
      const hook = await req().post('/v1/webhooks').set(bearer(acct.key)).send({ url: 'https://hooks.example.com/retiering', event_types: ['memory.updated'] });
      expect(hook.status).toBe(201);
      const m = await post({ content: 'A dusty note nobody reads', importance: 0.5 });
      await age(m.body.id, 100);
      await run();
      const deliveries = await t.ctx.db.knex('webhook_deliveries').where({ account_id: acct.accountId, event_type: 'memory.updated' });
      const payloads = deliveries.map((d) => (typeof d.payload === 'string' ? JSON.parse(d.payload) : d.payload));
      expect(payloads.map((p) => p.data)).toContainEqual(
        expect.objectContaining({ memory_id: m.body.id, changes: ['tier'], tier: 'cold', retiered: { from: 'warm', to: 'cold', reason: 'unused' } }),
      );
    });
  });

  it('the scheduled job re-tiers enabled accounts only, each once per interval', async () => {
    const on = await createAccount(t.ctx);
    const off = await createAccount(t.ctx);
    const idle = async (a: TestAccount) => {
      const res = await req().post('/v1/memories').set(bearer(a.key)).send({ agent_id: 'job', content: 'An idle memory of the scheduled job', importance: 0.5 });
      await t.ctx.db.knex('memories').where({ account_id: a.accountId, id: res.body.id }).update({ created_at: new Date(Date.now() - 365 * DAY_MS) });
      return res.body.id as string;
    };
    const [onId, offId] = [await idle(on), await idle(off)];
    await req().patch('/v1/retiering').set(bearer(on.key)).send({ enabled: true });
    await req().patch('/v1/retiering').set(bearer(off.key)).send({ enabled: false });
    const loop = retieringLoop({ retiering: { intervalMs: 3_600_000, batchSize: 100 } }, { db: t.ctx.db.knex, logger: t.ctx.logger });
    try {
      const claimed = await loop.sweep();
      expect(claimed.map((s) => s.account_id)).toContain(on.accountId);
      expect(claimed.map((s) => s.account_id)).not.toContain(off.accountId);
      const tierOf = async (a: TestAccount, id: string) => (await req().get(`/v1/memories/${id}`).set(bearer(a.key))).body.tier;
      await waitFor(async () => (await tierOf(on, onId)) === 'cold', 15_000, 'the enabled account re-tiered');
      expect(await tierOf(off, offId)).toBe('warm');
      // Visited within the interval: the next sweep leaves it alone.
      expect((await loop.sweep()).map((s) => s.account_id)).not.toContain(on.accountId);
    } finally {
      await loop.stop();
    }
  });
});

import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp, waitFor } from '@ams/testing';

type Hit = { memory: { id: string; content: string; valid_until?: number; superseded_by?: string; supersedes?: string }; score: number; score_breakdown?: Breakdown };
type Breakdown = { base_score: number; semantic?: number; factors: { vector: number | null; keyword: number | null; graph: number | null; recency: number | null; importance: number } };

/** A moment strictly after now (the database and this process share the clock), as ISO 8601 with milliseconds. */
async function momentAfterNow(): Promise<string> {
  const t0 = Date.now();
  await waitFor(() => Date.now() > t0 + 1, 1_000, 'the clock to move');
  const at = new Date().toISOString();
  await waitFor(() => Date.now() > Date.parse(at) + 1, 1_000, 'the clock to move past as_of');
  return at;
}

describe('time-aware recall: valid_from / valid_until, supersedes, as_of, recency', () => {
  let t: TestApp;
  let acct: TestAccount;
  let other: TestAccount;
  const req = () => t.request();
  const post = (body: object, key = acct.key) => req().post('/v1/memories').set(bearer(key)).send({ agent_id: 'timeline', ...body });
  const search = (body: object, key = acct.key) => req().post('/v1/memories/search').set(bearer(key)).send({ agent_id: 'timeline', ...body });
  const ids = (res: { body: { data: Hit[] } }) => res.body.data.map((d) => d.memory.id);

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
    other = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  describe('supersedes', () => {
    let oldId: string;
    let newId: string;
    let beforeSupersede: string;

    beforeAll(async () => {
      const old = await post({ content: 'The user lives in Lisbon and works from the Alfama office' });
      expect(old.status).toBe(201);
      oldId = old.body.id;
      beforeSupersede = await momentAfterNow();
      const replacement = await post({ content: 'The user lives in Porto and works from the Ribeira office', supersedes: oldId });
      expect(replacement.status).toBe(201);
      newId = replacement.body.id;
    });

    it('links both memories and ends the old one where the new one starts', async () => {
      const replacement = await req().get(`/v1/memories/${newId}`).set(bearer(acct.key));
      const old = await req().get(`/v1/memories/${oldId}`).set(bearer(acct.key));
      expect(replacement.body).toMatchObject({ supersedes: oldId, superseded_by: null, valid_until: null, tier_pinned: false });
      expect(old.body).toMatchObject({ superseded_by: newId, supersedes: null, valid_from: null });
      expect(old.body.valid_until).toBe(replacement.body.valid_from);
      expect(Math.abs(old.body.valid_until - Date.now() / 1000)).toBeLessThan(60);
    });

    it('leaves the old memory out of a plain search, keeps it with include_superseded', async () => {
      const plain = await search({ query: 'where does the user live', limit: 10 });
      expect(ids(plain)).toContain(newId);
      expect(ids(plain)).not.toContain(oldId);
      const all = await search({ query: 'where does the user live', limit: 10, include_superseded: true });
      expect(ids(all)).toEqual(expect.arrayContaining([oldId, newId]));
      const oldHit = all.body.data.find((d: Hit) => d.memory.id === oldId);
      expect(oldHit.memory).toMatchObject({ superseded_by: newId, valid_until: expect.any(Number) });
    });

    it('as_of before the supersede returns the old memory and not the new one, in every mode', async () => {
      for (const search_mode of ['semantic', 'keyword', 'hybrid']) {
        const then = await search({ query: 'user lives office', search_mode, as_of: beforeSupersede });
        expect(then.status).toBe(200);
        expect(ids(then)).toContain(oldId);
        expect(ids(then)).not.toContain(newId);
      }
      // A moment past the supersede (Unix seconds would round down into the second it happened in).
      const now = await search({ query: 'user lives office', as_of: await momentAfterNow() });
      expect(ids(now)).toContain(newId);
      expect(ids(now)).not.toContain(oldId);
    });

    it('builds the context as it was at as_of', async () => {
      const then = await req().post('/v2/context/build').set(bearer(acct.key)).send({ query: 'where does the user live', agent_id: 'timeline', threshold: 0, as_of: beforeSupersede });
      expect(then.status).toBe(200);
      expect(then.body.memories.map((m: { id: string }) => m.id)).toContain(oldId);
      expect(then.body.memories.map((m: { id: string }) => m.id)).not.toContain(newId);
      const now = await req().post('/v2/context/build').set(bearer(acct.key)).send({ query: 'where does the user live', agent_id: 'timeline', threshold: 0 });
      expect(now.body.memories.map((m: { id: string }) => m.id)).toContain(newId);
      expect(now.body.memories.map((m: { id: string }) => m.id)).not.toContain(oldId);
    });

    it('superseding twice is 409; another account\'s memory or an unknown one is 404 (as decisions)', async () => {
      expectError(await post({ content: 'The user lives in Faro', supersedes: oldId }), 409, 'conflict');
      const foreign = await post({ content: 'A memory of another account' }, other.key);
      expectError(await post({ content: 'Taking over a foreign memory', supersedes: foreign.body.id }), 404, 'not_found');
      expectError(await post({ content: 'Superseding nothing', supersedes: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found');
      // Nothing of the refused creates was stored.
      const foreignAfter = await req().get(`/v1/memories/${foreign.body.id}`).set(bearer(other.key));
      expect(foreignAfter.body).toMatchObject({ superseded_by: null, valid_until: null });
    });

    it('v2 creates supersede too', async () => {
      const first = await post({ content: 'The build uses Node 18' });
      const res = await req().post('/v2/memories').set(bearer(acct.key)).send({ agent_id: 'timeline', content: 'The build uses Node 20', supersedes: first.body.id });
      expect(res.status).toBe(202);
      const old = await req().get(`/v1/memories/${first.body.id}`).set(bearer(acct.key));
      expect(old.body.superseded_by).toBe(res.body.id);
    });
  });

  describe('valid_from / valid_until', () => {
    it('a memory true only in the past leaves plain search, was not known before it was recorded, and include_superseded finds it', async () => {
      const res = await post({ content: 'The sprint demo happens on Fridays in the big room', valid_from: '2020-01-01T00:00:00Z', valid_until: 1609459200 });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ valid_from: 1577836800, valid_until: 1609459200 });
      expect(ids(await search({ query: 'sprint demo Fridays' }))).not.toContain(res.body.id);
      // Recorded now, so at 2020 the agent did not know it yet.
      expect(ids(await search({ query: 'sprint demo Fridays', as_of: '2020-06-01T00:00:00Z' }))).not.toContain(res.body.id);
      expect(ids(await search({ query: 'sprint demo Fridays', include_superseded: true }))).toContain(res.body.id);
    });

    it('PATCH sets the window, and checks its order', async () => {
      const m = await post({ content: 'The staging database is called stg-main' });
      const ended = await req().patch(`/v1/memories/${m.body.id}`).set(bearer(acct.key)).send({ valid_until: Math.floor(Date.now() / 1000) - 1 });
      expect(ended.status).toBe(200);
      expect(ids(await search({ query: 'staging database name' }))).not.toContain(m.body.id);
      const bad = await req().patch(`/v1/memories/${m.body.id}`).set(bearer(acct.key)).send({ valid_from: Math.floor(Date.now() / 1000) });
      expectError(bad, 422, 'validation_error');
      expect(bad.body.details).toEqual([{ field: 'valid_from', message: expect.stringMatching(/^valid_from \(.*\) must be earlier than valid_until/) }]);
    });

    it('refuses a create whose window ends before it starts', async () => {
      const res = await post({ content: 'Backwards window', valid_from: 1700000000, valid_until: 1600000000 });
      expectError(res, 422, 'validation_error');
      expect(res.body.details[0].message).toMatch(/must be earlier than valid_until/);
    });
  });

  describe('as_of: bad input', () => {
    it('in the future is 422 naming as_of', async () => {
      const res = await search({ query: 'anything', as_of: Math.floor(Date.now() / 1000) + 3_600 });
      expectError(res, 422, 'validation_error');
      expect(res.body.details).toEqual([{ field: 'as_of', message: expect.stringMatching(/^as_of must not be in the future \(now is .*\)$/) }]);
      const ctx = await req().post('/v2/context/build').set(bearer(acct.key)).send({ query: 'anything', as_of: '2999-01-01T00:00:00Z' });
      expectError(ctx, 422, 'validation_error');
      expect(ctx.body.details[0].field).toBe('as_of');
    });

    it('malformed is 422 naming the forms accepted', async () => {
      for (const as_of of ['last tuesday', '2024-13-45', true, { at: 1 }]) {
        const res = await search({ query: 'anything', as_of });
        expectError(res, 422, 'validation_error');
        expect(res.body.details).toEqual([{ field: 'as_of', message: 'as_of must be Unix seconds (a number) or an ISO 8601 date-time string' }]);
      }
    });

    it('out of range says so in one message, whichever form and member: as_of, valid_from, expires_before', async () => {
      const range = (field: string) => new RegExp(`^${field} must lie within 100 years of now \\(`);
      // -1 is a second before 1970: a date like any other, within the range.
      expect((await search({ query: 'anything', as_of: -1 })).status).toBe(200);
      for (const as_of of [-4e9, -1e15, '1800-01-01T00:00:00Z']) {
        const res = await search({ query: 'anything', as_of });
        expectError(res, 422, 'validation_error');
        expect(res.body.details).toEqual([{ field: 'as_of', message: expect.stringMatching(range('as_of')) }]);
      }
      const created = await post({ agent_id: 'timeline', content: 'dated long ago', valid_from: -4e9 });
      expect(created.body.details).toEqual([{ field: 'valid_from', message: expect.stringMatching(range('valid_from')) }]);
      const listed = await req().get('/v1/memories?expires_before=-4000000000').set(bearer(acct.key));
      expect(listed.body.details).toEqual([{ field: 'expires_before', message: expect.stringMatching(range('expires_before')) }]);
      const expiring = await post({ agent_id: 'timeline', content: 'already gone', expires_at: -1 });
      expect(expiring.body.details).toEqual([{ field: 'expires_at', message: expect.stringMatching(/^expires_at must be in the future: /) }]);
    });

    it('recency_half_life must be at least a second', async () => {
      const res = await search({ query: 'anything', recency_half_life: 0 });
      expectError(res, 422, 'validation_error');
      expect(res.body.details).toEqual([{ field: 'recency_half_life', message: 'recency_half_life must be greater than or equal to 1' }]);
    });
  });

  describe('recency_half_life', () => {
    it('weighs older memories down, showing every factor in score_breakdown', async () => {
      const oldOne = await post({ agent_id: 'recency', content: 'Deploys go out through the blue pipeline', valid_from: Math.floor(Date.now() / 1000) - 30 * 86_400 });
      const newOne = await post({ agent_id: 'recency', content: 'Deploys go out through the green pipeline' });
      for (const search_mode of ['semantic', 'keyword', 'hybrid']) {
        const res = await search({ agent_id: 'recency', query: 'deploys pipeline', search_mode, recency_half_life: 86_400, debug: true });
        expect(res.status).toBe(200);
        expect(ids(res)[0]).toBe(newOne.body.id);
        const byId = new Map(res.body.data.map((d: Hit) => [d.memory.id, d]));
        const old = byId.get(oldOne.body.id) as Hit;
        expect(old.score_breakdown!.factors.recency).toBeLessThan(1e-6);
        expect(old.score).toBeCloseTo(old.score_breakdown!.base_score * old.score_breakdown!.factors.recency!, 6);
        const fresh = byId.get(newOne.body.id) as Hit;
        expect(fresh.score_breakdown!.factors).toEqual({
          vector: search_mode === 'keyword' ? null : expect.any(Number),
          keyword: search_mode === 'semantic' ? null : expect.any(Number),
          graph: null,
          recency: expect.closeTo(1, 2),
          importance: 0.5,
        });
      }
    });

    it('without it, the score is untouched and recency is null', async () => {
      const res = await search({ agent_id: 'recency', query: 'deploys pipeline', debug: true });
      for (const d of res.body.data as Hit[]) {
        expect(d.score_breakdown).not.toHaveProperty('base_score');
        expect(d.score_breakdown!.factors).toMatchObject({ recency: null, vector: d.score_breakdown!.semantic });
      }
    });
  });
});

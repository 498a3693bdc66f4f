import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';
import { MEMORY_VERSION_FIELDS } from '@ams/memories';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('memory history', () => {
  let t: TestApp;
  let acct: TestAccount;
  const create = (body: object, key = acct.key) => t.request().post('/v1/memories').set(bearer(key)).send({ agent_id: 'historian', ...body });
  const patch = (id: string, body: object, key = acct.key) => t.request().patch(`/v1/memories/${id}`).set(bearer(key)).send(body);
  const history = (id: string, query = '', key = acct.key) => t.request().get(`/v1/memories/${id}/history${query}`).set(bearer(key));
  const restoreTo = (id: string, version: number | string, key = acct.key) => t.request().post(`/v1/memories/${id}/history/${version}/restore`).set(bearer(key));

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('records the create as version 1: every field, who and when', async () => {
    const m = await create({ content: 'The deploy window is Tuesday', metadata: { source: 'chat' }, importance: 0.6 });
    expect(m.body.version).toBe(1);
    const res = await history(m.body.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null, total_count: 1 });
    const [v1] = res.body.data;
    const keyId = (await t.ctx.db.knex('api_keys').where({ account_id: acct.accountId }).first()).id;
    expect(v1).toMatchObject({
      object: 'memory_version',
      memory_id: m.body.id,
      version: 1,
      change: 'create',
      before: {},
      after: { content: 'The deploy window is Tuesday', metadata: { source: 'chat' }, importance: 0.6, tier: 'warm', archived: false, expires_at: null },
      actor: { type: 'api_key', key_id: keyId, agent_id: null },
    });
    // The memory's public members only, `embedding` for its vector; no bookkeeping column.
    expect(v1.changed_fields).toEqual([...MEMORY_VERSION_FIELDS]);
    expect(Math.abs(v1.created_at - Date.now() / 1000)).toBeLessThan(60);
  });

  it('every place a memory is shown carries its version: get, list items, search results', async () => {
    const m = await create({ content: 'The okapi is a cousin of the giraffe' });
    await patch(m.body.id, { importance: 0.8 });
    const listed = await t.request().get('/v1/memories?agent_id=historian&limit=100').set(bearer(acct.key));
    expect(listed.body.data.find((x: { id: string }) => x.id === m.body.id)).toMatchObject({ version: 2 });
    const found = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ agent_id: 'historian', query: 'okapi giraffe', search_mode: 'keyword' });
    expect(found.body.data.find((x: { memory: { id: string } }) => x.memory.id === m.body.id).memory).toMatchObject({ version: 2 });
  });

  it('names public fields only: tier_pinned for a pin, no embedding on a create still waiting for its vector', async () => {
    const m = await create({ content: 'The release train leaves on Fridays' });
    const pinned = await patch(m.body.id, { tier_pinned: true });
    expect(pinned.status).toBe(200);
    const [v2] = (await history(m.body.id)).body.data;
    expect(v2).toMatchObject({ change: 'update', changed_fields: ['tier_pinned'], before: { tier_pinned: false }, after: { tier_pinned: true } });
    const pending = await t.request().post('/v2/memories').set(bearer(acct.key)).send({ agent_id: 'historian', content: 'queued for the worker' });
    expect(pending.status).toBe(202);
    // Without a queue the request embeds it after the insert: the vector is a version of its own.
    const [embedded, created] = (await history(pending.body.id)).body.data;
    expect(created.changed_fields).toEqual(MEMORY_VERSION_FIELDS.filter((f) => f !== 'embedding'));
    expect(embedded).toMatchObject({ change: 'embed', changed_fields: ['embedding'], before: {}, after: {} });
  });

  it('records each change with the fields that changed, before and after, newest first; memory.updated carries the version', async () => {
    await t.request().post('/v1/webhooks').set(bearer(acct.key)).send({ url: 'https://h.example.com/history' });
    const m = await create({ content: 'Staging runs on Postgres 15' });
    await patch(m.body.id, { content: 'Staging runs on Postgres 16' });
    await patch(m.body.id, { metadata: { checked: true }, importance: 0.9 });
    const unchanged = await patch(m.body.id, { content: 'Staging runs on Postgres 16' });
    expect(unchanged.body.version).toBe(3); // nothing tracked changed: no version
    const res = await history(m.body.id);
    expect(res.body.data.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    const [v3, v2] = res.body.data;
    expect(v2).toMatchObject({ change: 'update', before: { content: 'Staging runs on Postgres 15' }, after: { content: 'Staging runs on Postgres 16' } });
    expect(v2.changed_fields).toEqual(expect.arrayContaining(['content', 'embedding']));
    expect(v3).toMatchObject({ change: 'update', before: { metadata: {}, importance: 0.5, tier: 'warm' }, after: { metadata: { checked: true }, importance: 0.9, tier: 'hot' } });
    const events = await t.ctx.db
      .knex('webhook_deliveries')
      .where({ account_id: acct.accountId, event_type: 'memory.updated' })
      .whereRaw(`payload -> 'data' ->> 'memory_id' = ?`, [m.body.id])
      .orderBy('created_at');
    expect(events.map((e) => e.payload.data.version)).toEqual([2, 3, 3]);
  });

  it('pages with limit and next_cursor, and refuses a cursor it did not issue', async () => {
    const m = await create({ content: 'counter 0' });
    for (let i = 1; i <= 4; i++) await patch(m.body.id, { content: `counter ${i}` });
    const first = await history(m.body.id, '?limit=2');
    expect(first.body).toMatchObject({ has_more: true, total_count: 5 });
    expect(first.body.data.map((v: { version: number }) => v.version)).toEqual([5, 4]);
    const second = await history(m.body.id, `?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((v: { version: number }) => v.version)).toEqual([3, 2]);
    const third = await history(m.body.id, `?limit=2&cursor=${second.body.next_cursor}`);
    expect(third.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(third.body.data.map((v: { version: number }) => v.version)).toEqual([1]);
    const bad = expectError(await history(m.body.id, '?cursor=bm9wZQ'), 422, 'validation_error');
    expect(bad.details).toEqual([{ field: 'cursor', message: 'cursor is not a cursor issued by this history' }]);
  });

  it('50 concurrent updates of one memory make 50 versions, in order, none lost', async () => {
    const m = await create({ content: 'a busy memory' });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => patch(m.body.id, { metadata: { [`k${i}`]: i } })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const versions: Array<{ version: number; before: { metadata: Record<string, number> }; after: { metadata: Record<string, number> } }> = [];
    let cursor = '';
    do {
      const page = await history(m.body.id, `?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      versions.push(...page.body.data);
      cursor = page.body.next_cursor ?? '';
    } while (cursor);
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: 51 }, (_, i) => 51 - i));
    // Each version's before is the previous version's after: a chain with no gap and no lost write.
    const chronological = versions.slice().reverse().slice(1);
    chronological.forEach((v, i) => expect(Object.keys(v.after.metadata)).toHaveLength(i + 1));
    for (let i = 1; i < chronological.length; i++) expect(chronological[i]!.before.metadata).toEqual(chronological[i - 1]!.after.metadata);
    expect((await t.request().get(`/v1/memories/${m.body.id}`).set(bearer(acct.key))).body).toMatchObject({ version: 51 });
  });

  it('restores a version as a new version, re-embedding its content, and the restored memory is found by it', async () => {
    const m = await create({ content: 'The office wifi password rotates monthly', metadata: { a: 1 } });
    await patch(m.body.id, { content: 'Lunch is served at noon', metadata: { b: 2 }, importance: 0.1 });
    const res = await restoreTo(m.body.id, 1);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ content: 'The office wifi password rotates monthly', metadata: { a: 1 }, importance: 0.5, version: 3 });
    const [v3] = (await history(m.body.id)).body.data;
    expect(v3).toMatchObject({ version: 3, change: 'restore_version', before: { content: 'Lunch is served at noon', metadata: { a: 1, b: 2 } }, after: { content: 'The office wifi password rotates monthly', metadata: { a: 1 } } });
    const search = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'wifi password rotates', search_mode: 'semantic', limit: 3 });
    expect(search.body.data[0].memory.id).toBe(m.body.id);
  });

  it("keeps a deleted memory's history readable, records the delete, and a version restore brings it back", async () => {
    const m = await create({ content: 'soon deleted' });
    expect((await t.request().delete(`/v1/memories/${m.body.id}`).set(bearer(acct.key))).status).toBe(204);
    expectError(await t.request().get(`/v1/memories/${m.body.id}`).set(bearer(acct.key)), 404, 'not_found');
    const after = await history(m.body.id);
    expect(after.status).toBe(200);
    // The change says what happened; a delete changes none of the memory's members.
    expect(after.body.data[0]).toMatchObject({ version: 2, change: 'delete', changed_fields: [], before: {}, after: {} });
    const back = await restoreTo(m.body.id, 1);
    expect(back.status).toBe(200);
    expect((await t.request().get(`/v1/memories/${m.body.id}`).set(bearer(acct.key))).status).toBe(200);
    expect((await history(m.body.id)).body.data[0]).toMatchObject({ version: 3, change: 'restore_version' });
  });

  it('records an undelete as restore', async () => {
    const m = await create({ content: 'deleted then restored' });
    await t.request().delete(`/v1/memories/${m.body.id}`).set(bearer(acct.key));
    await t.request().post(`/v1/memories/${m.body.id}/restore`).set(bearer(acct.key));
    expect((await history(m.body.id)).body.data.map((v: { change: string }) => v.change)).toEqual(['restore', 'delete', 'create']);
  });

  it("answers 404 for another account's memory, its versions and a version that does not exist", async () => {
    const other = await createAccount(t.ctx);
    const theirs = await create({ content: 'not yours' }, other.key);
    expectError(await history(theirs.body.id), 404, 'not_found');
    expectError(await restoreTo(theirs.body.id, 1), 404, 'not_found');
    expect((await history(theirs.body.id, '', other.key)).status).toBe(200);
    const mine = await create({ content: 'mine' });
    expect(expectError(await restoreTo(mine.body.id, 7), 404, 'not_found').message).toMatch(/Memory version/);
    expectError(await restoreTo(mine.body.id, 'latest'), 404, 'not_found');
    expectError(await history(UNKNOWN_ID), 404, 'not_found');
  });

  it("a key bound to an agent sees only its agent's histories, and is named as the actor", async () => {
    const m = await create({ content: 'agent scoped' });
    const agentKey = await acct.keyWith(['read', 'write'], { agentId: m.body.agent_id });
    const otherAgent = await create({ content: 'other agent', agent_id: 'someone-else' });
    expectError(await history(otherAgent.body.id, '', agentKey), 404, 'not_found');
    await patch(m.body.id, { content: 'agent scoped, edited' }, agentKey);
    expect((await history(m.body.id, '', agentKey)).body.data[0].actor).toMatchObject({ type: 'api_key', agent_id: m.body.agent_id });
  });

  it('needs read scope to list and write scope to restore', async () => {
    const m = await create({ content: 'scoped' });
    expectError(await restoreTo(m.body.id, 1, await acct.keyWith(['read'])), 403, 'authorization_error');
    expect((await history(m.body.id, '', await acct.keyWith(['read']))).status).toBe(200);
  });
});

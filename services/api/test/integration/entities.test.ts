import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';

describe('entities', () => {
  let t: TestApp;
  let acct: TestAccount;
  const create = (body: object, key = acct.key) => t.request().post('/v1/entities').set(bearer(key)).send(body);
  const memory = async (content: string) =>
    (await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'ent', content, auto_extract_entities: false })).body.id as string;

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('creates an entity: 201 with the spec fields', async () => {
    const res = await create({ name: 'Ada Lovelace', entity_type: 'person', metadata: { era: 'victorian' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      object: 'entity',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Ada Lovelace',
      entity_type: 'person',
      type: 'person', // the same value under the name several clients read (docs/clients.md)
      metadata: { era: 'victorian' },
      memory_count: 0,
      relationship_count: 0,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
  });

  it('accepts `type` as an alias and `place` for location', async () => {
    expect((await create({ name: 'Lisbon', type: 'place' })).body.entity_type).toBe('location');
    expect((await create({ name: 'Oslo', entity_type: 'Place' })).body.entity_type).toBe('location');
  });

  it('answers 409 for the same name and type again', async () => {
    await create({ name: 'Redis', entity_type: 'technology' });
    expectError(await create({ name: 'redis', entity_type: 'technology' }), 409, 'conflict');
    expect((await create({ name: 'Redis', entity_type: 'organization' })).status).toBe(201);
  });

  it.each([
    [{ entity_type: 'person' }, 'name'],
    [{ name: 'x' }, 'entity_type'],
    [{ name: 'x', entity_type: 'planet' }, 'entity_type'],
    [{ name: 'n'.repeat(256), entity_type: 'person' }, 'name'],
    [{ name: 'x', entity_type: 'person', metadata: { blob: 'x'.repeat(10_231) } }, 'metadata'],
  ])('rejects %j with 422 on %s', async (body, field) => {
    expect(expectError(await create(body), 422, 'validation_error').details!.map((d) => d.field)).toContain(field);
  });

  it('links memories (duplicate link returns the same link) and counts them', async () => {
    const entity = await create({ name: 'Grafana', entity_type: 'technology' });
    const m1 = await memory('dashboards for the api');
    const m2 = await memory('alerts for the workers');
    const link = await t.request().post('/v1/entities/link').set(bearer(acct.key)).send({ entity_id: entity.body.id, memory_id: m1 });
    expect(link.status).toBe(201);
    expect(link.body).toEqual({ entity_id: entity.body.id, memory_id: m1, relationship: 'mentioned_in', relevance_score: 1, created_at: expect.stringMatching(/Z$/) });
    const again = await t.request().post('/v1/entities/link').set(bearer(acct.key)).send({ entity_id: entity.body.id, memory_id: m1 });
    expect(again.body).toEqual(link.body);
    await t.request().post('/v1/entities/link').set(bearer(acct.key)).send({ entity_id: entity.body.id, memory_id: m1, relationship: 'created_by' });
    await t.request().post('/v1/entities/link').set(bearer(acct.key)).send({ entity_id: entity.body.id, memory_id: m2 });
    const got = await t.request().get(`/v1/entities/${entity.body.id}`).set(bearer(acct.key));
    expect(got.body).toMatchObject({ memory_count: 2, relationship_count: 3 });
    const mem = await t.request().get(`/v1/memories/${m1}`).set(bearer(acct.key));
    expect(mem.body.entities).toEqual([{ type: 'technology', value: 'Grafana', confidence: 1 }]);
    // A deleted memory no longer counts.
    await t.request().delete(`/v1/memories/${m2}`).set(bearer(acct.key));
    expect((await t.request().get(`/v1/entities/${entity.body.id}`).set(bearer(acct.key))).body.memory_count).toBe(1);
  });

  it('answers 404 when linking an unknown entity or memory, 422 for bad ids', async () => {
    const entity = await create({ name: 'Kafka', entity_type: 'technology' });
    const m = await memory('streams');
    const unknown = '00000000-0000-4000-8000-000000000000';
    expectError(await t.request().post('/v1/entities/link').set(bearer(acct.key)).send({ entity_id: unknown, memory_id: m }), 404, 'not_found');
    expectError(await t.request().post('/v1/entities/link').set(bearer(acct.key)).send({ entity_id: entity.body.id, memory_id: unknown }), 404, 'not_found');
    const bad = await t.request().post('/v1/entities/link').set(bearer(acct.key)).send({ entity_id: 'x', memory_id: m });
    expect(expectError(bad, 422, 'validation_error').details![0]!.field).toBe('entity_id');
  });

  it('lists by type, patches with merge and aliases, deletes softly keeping links', async () => {
    const e = await create({ name: 'Acme', entity_type: 'organization', metadata: { a: 1 } });
    const m = await memory('acme contract');
    await t.request().post('/v1/entities/link').set(bearer(acct.key)).send({ entity_id: e.body.id, memory_id: m });
    const list = await t.request().get('/v1/entities?entity_type=organization&limit=100').set(bearer(acct.key));
    expect(list.body.object).toBe('list');
    expect(list.body.data.every((x: { entity_type: string }) => x.entity_type === 'organization')).toBe(true);
    const patched = await t.request().patch(`/v1/entities/${e.body.id}`).set(bearer(acct.key)).send({ type: 'product', metadata: { b: 2 } });
    expect(patched.body).toMatchObject({ entity_type: 'product', metadata: { a: 1, b: 2 } });
    expect((await t.request().delete(`/v1/entities/${e.body.id}`).set(bearer(acct.key))).status).toBe(204);
    expectError(await t.request().get(`/v1/entities/${e.body.id}`).set(bearer(acct.key)), 404, 'not_found');
    const links = await t.ctx.db.knex('entity_memory_links').where({ entity_id: e.body.id });
    expect(links).toHaveLength(1);
  });

  it("isolates accounts and checks scopes", async () => {
    const other = await createAccount(t.ctx);
    const theirs = await create({ name: 'Hidden', entity_type: 'concept' }, other.key);
    expectError(await t.request().get(`/v1/entities/${theirs.body.id}`).set(bearer(acct.key)), 404, 'not_found');
    expectError(await t.request().delete(`/v1/entities/${theirs.body.id}`).set(bearer(acct.key)), 404, 'not_found');
    expect(expectError(await create({ name: 'x', entity_type: 'other' }, await acct.keyWith(['read'])), 403, 'authorization_error').message).toBe('Insufficient scope. Required: write');
  });
});

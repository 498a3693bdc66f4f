import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';

describe('POST /v2/context/build', () => {
  let t: TestApp;
  let acct: TestAccount;
  const build = (body: object) => t.request().post('/v2/context/build').set(bearer(acct.key)).send(body);

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
    const seed = [
      { content: 'Kafka consumer lag alert fires above ten thousand messages', importance: 0.9, memory_type: 'fact' },
      { content: 'Kafka consumer lag dashboards live in Grafana', importance: 0.4, memory_type: 'fact' },
      { content: 'Kafka consumer lag credentials are in the vault', importance: 0.7, visibility: 'confidential' },
      { content: 'Kafka consumer lag runbook from the old cluster', importance: 0.3, archived: true },
      { content: 'The office plants are watered on Thursdays', importance: 0.5 },
    ];
    for (const { archived, ...body } of seed) {
      const res = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'ctx', ...body });
      if (archived) await t.request().patch(`/v1/memories/${res.body.id}`).set(bearer(acct.key)).send({ archived: true });
    }
  });
  afterAll(() => t.close());

  it('formats the memories above the threshold, best first, with type, importance and date', async () => {
    const res = await build({ query: 'kafka consumer lag alert', agent_id: 'ctx', threshold: 0.2 });
    expect(res.status).toBe(200);
    const lines = (res.body.context as string).split('\n');
    expect(lines[0]).toBe('Relevant memories:');
    expect(lines[1]).toMatch(/^1\. \[fact \| importance 0\.90 \| \d{4}-\d{2}-\d{2}\] Kafka consumer lag alert fires above ten thousand messages$/);
    expect(res.body.memories_used).toBe(lines.length - 1);
    expect(res.body.total_chars).toBe(res.body.context.length);
  });

  it('never includes confidential or archived memories', async () => {
    const res = await build({ query: 'kafka consumer lag credentials vault runbook', agent_id: 'ctx', threshold: 0 });
    expect(res.body.context).not.toMatch(/vault|runbook/);
  });

  it('applies the threshold (default 0.5)', async () => {
    const strict = await build({ query: 'kafka consumer lag alert', agent_id: 'ctx', threshold: 0.99 });
    // The spec's members, plus the additive ones of docs/clients.md.
    expect(strict.body).toMatchObject({ context: '', memories_used: 0, total_chars: 0, memories: [] });
    const loose = await build({ query: 'kafka consumer lag alert', agent_id: 'ctx', threshold: 0 });
    expect(loose.body.memories_used).toBeGreaterThan(1);
    expect(loose.body.context).toContain('watered');
  });

  it('respects max_tokens exactly (4 characters a token) without cutting a word', async () => {
    const full = await build({ query: 'kafka consumer lag alert', agent_id: 'ctx', threshold: 0 });
    for (const maxTokens of [10, 23, 31, 57]) {
      const res = await build({ query: 'kafka consumer lag alert', agent_id: 'ctx', threshold: 0, max_tokens: maxTokens });
      const context = res.body.context as string;
      expect(context.length).toBeLessThanOrEqual(maxTokens * 4);
      expect(res.body.total_chars).toBe(context.length);
      // Every word kept is a whole word of the untruncated context.
      const lastWord = context.split(/\s+/).pop()!;
      if (context) expect(full.body.context).toMatch(new RegExp(`${lastWord.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\s|$)`));
    }
  });

  it('fills the budget exactly: the context is the longest word-aligned prefix of the full one that fits', async () => {
    const full = (await build({ query: 'kafka consumer lag alert', agent_id: 'ctx', threshold: 0 })).body.context as string;
    for (let maxTokens = 1; maxTokens * 4 < full.length + 8; maxTokens += 3) {
      const budget = maxTokens * 4;
      const { context, memories_used } = (await build({ query: 'kafka consumer lag alert', agent_id: 'ctx', threshold: 0, max_tokens: maxTokens })).body;
      expect(full.startsWith(context)).toBe(true);
      expect(context.length).toBeLessThanOrEqual(budget);
      expect(memories_used).toBe(context ? context.split('\n').length - 1 : 0);
      const rest = full.slice(context.length);
      if (rest) {
        // The smallest extension that adds one more word of some memory's content does not fit.
        const next = rest.match(/^(Relevant memories:)?(\n\d+\. \[[^\]]*\] )?\s*\S+/)![0];
        expect(context.length + next.length).toBeGreaterThan(budget);
      }
    }
  });

  it('ranks best first: the order of semantic search', async () => {
    const query = 'kafka consumer lag alert';
    const search = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query, agent_id: 'ctx', min_score: 0.2 });
    const res = await build({ query, agent_id: 'ctx', threshold: 0.2 });
    const contents = (res.body.context as string).split('\n').slice(1).map((l) => l.replace(/^\d+\. \[[^\]]*\] /, ''));
    expect(contents).toEqual(search.body.data.map((d: { memory: { content: string } }) => d.memory.content));
    expect(contents.length).toBeGreaterThan(1);
  });

  it('leaves out memories still waiting for their embedding, and deleted ones', async () => {
    const pending = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'ctx', content: 'Kafka consumer lag pending note' });
    await t.ctx.db.knex('memories').where({ id: pending.body.id }).update({ embedding_status: 'pending' });
    const deleted = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'ctx', content: 'Kafka consumer lag deleted note' });
    await t.request().delete(`/v1/memories/${deleted.body.id}`).set(bearer(acct.key));
    const res = await build({ query: 'kafka consumer lag note', agent_id: 'ctx', threshold: 0 });
    expect(res.body.context).not.toMatch(/pending note|deleted note/);
  });

  it('needs a key with read scope', async () => {
    expectError(await t.request().post('/v2/context/build').send({ query: 'x' }), 401, 'unauthorized');
    const writeOnly = await acct.keyWith(['write']);
    expectError(await t.request().post('/v2/context/build').set(bearer(writeOnly)).send({ query: 'x' }), 403, 'authorization_error');
  });

  it('limits the number of memories', async () => {
    const res = await build({ query: 'kafka', agent_id: 'ctx', threshold: 0, limit: 1 });
    expect(res.body.memories_used).toBe(1);
  });

  it.each([
    ['query', {}],
    ['query', { query: ' ' }],
    ['query', { query: 'x'.repeat(5_001) }],
    ['limit', { query: 'x', limit: 0 }],
    ['limit', { query: 'x', limit: 51 }],
    ['threshold', { query: 'x', threshold: 1.5 }],
    ['max_tokens', { query: 'x', max_tokens: 0 }],
  ])('rejects a bad %s (case %#) with 422', async (field, body) => {
    expect(expectError(await build(body), 422, 'validation_error').details!.map((d) => d.field)).toContain(field);
  });

  it('accepts the bounds: a 5,000-character query and limit 50', async () => {
    expect((await build({ query: 'q'.repeat(5_000), limit: 50 })).status).toBe(200);
  });
});

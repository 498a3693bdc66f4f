import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '../support/test-app';

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
    expect(strict.body).toEqual({ context: '', memories_used: 0, total_chars: 0 });
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

  it('limits the number of memories', async () => {
    const res = await build({ query: 'kafka', agent_id: 'ctx', threshold: 0, limit: 1 });
    expect(res.body.memories_used).toBe(1);
  });

  it.each([
    [{}, 'query'],
    [{ query: ' ' }, 'query'],
    [{ query: 'x'.repeat(5_001) }, 'query'],
    [{ query: 'x', limit: 0 }, 'limit'],
    [{ query: 'x', limit: 51 }, 'limit'],
    [{ query: 'x', threshold: 1.5 }, 'threshold'],
    [{ query: 'x', max_tokens: 0 }, 'max_tokens'],
  ])('rejects %j with 422 on %s', async (body, field) => {
    expect(expectError(await build(body), 422, 'validation_error').details!.map((d) => d.field)).toContain(field);
  });

  it('accepts the bounds: a 5,000-character query and limit 50', async () => {
    expect((await build({ query: 'q'.repeat(5_000), limit: 50 })).status).toBe(200);
  });
});

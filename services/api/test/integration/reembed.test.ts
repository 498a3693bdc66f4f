/**
 * @jest-environment <rootDir>/test/onnx-environment.js
 */
import { memoriesRepository } from '@ams/db';
import { LexicalEmbedder, SwitchableEmbedder, toPgVector } from '@ams/embeddings';
import {
  bearer,
  createAccount,
  createPrivateTestDatabase,
  createTestApp,
  ensureGeneratedModel,
  expectError,
  insertMemories,
  waitFor,
  type TestAccount,
  type TestApp,
} from '@ams/testing';

// The second model: a generated BERT of 32 dimensions (the first is the lexical embedder's 384).
const target = ensureGeneratedModel({ kind: 'tiny' });
const STORE_SIZE = 2_000;

const TOPICS = ['postgres vacuum tuning', 'redis eviction policy', 'kubernetes pod scheduling', 'typescript generics', 'webhook retries'];
const content = (i: number) => `note ${i}: ${TOPICS[i % TOPICS.length]} observed on host ${i % 37} during release ${i % 11}`;

describe('re-embedding the store with another model, online', () => {
  let t: TestApp;
  let acct: TestAccount;
  let scratch: Awaited<ReturnType<typeof createPrivateTestDatabase>> | undefined;

  beforeAll(async () => {
    // What a re-embed changes is service-wide: a database of this file's own.
    scratch = await createPrivateTestDatabase('reembed', 6);
    t = await createTestApp(
      // In-process worker (no queues), polling fast; models only from the generated model's directory.
      { REDIS_URL: undefined, MODEL_DIR: target.modelDir, EMBEDDING_ALLOW_REMOTE_MODELS: 'false', EMBEDDING_MODEL_POLL_MS: '100', EMBEDDING_BATCH_SIZE: '16' },
      { embedder: new SwitchableEmbedder(new LexicalEmbedder()), ingestion: true, db: scratch.db },
    );
    acct = await createAccount(t.ctx);
    await insertMemories(t.ctx, acct.accountId, 'bulk', Array.from({ length: STORE_SIZE }, (_, i) => content(i)));
    await t.request().post('/v1/decisions').set(bearer(acct.key)).send({ title: 'Use pgvector', rationale: 'One database for rows and vectors' }).expect(201);
    await t.request().post('/v1/patterns').set(bearer(acct.key)).send({ title: 'Retry with backoff', description: 'Webhook retries wait 5, 25, 125 s' }).expect(201);
  }, 300_000);

  afterAll(async () => {
    await t?.close();
    await scratch?.drop();
  });

  const search = (query: string) =>
    t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query, limit: 5 });

  it('refuses bad input with the envelope and changes nothing', async () => {
    const readOnly = await acct.keyWith(['read', 'write']);
    expectError(await t.request().post('/v1/admin/reembed').set(bearer(readOnly)).send({ model: target.model }), 403, 'authorization_error');
    // Another tenant's admin key: the model is service-wide, so only the operator's (first) account may switch it.
    const tenant = await createAccount(t.ctx);
    const refused = expectError(await t.request().post('/v1/admin/reembed').set(bearer(tenant.key)).send({ model: target.model }), 403, 'authorization_error');
    expect(refused.message).toContain("only the operator's account");
    const unknown = expectError(await t.request().post('/v1/admin/reembed').set(bearer(acct.key)).send({ model: 'nobody/no-such-model' }), 422, 'validation_error');
    expect(unknown.details).toEqual([expect.objectContaining({ field: 'model', message: expect.stringContaining('no model files') })]);
    const active = expectError(await t.request().post('/v1/admin/reembed').set(bearer(acct.key)).send({ model: 'lexical-hash-v1' }), 422, 'validation_error');
    expect(active.details![0]!.message).toContain('already the active model');
    expectError(await t.request().post('/v1/admin/reembed').set(bearer(acct.key)).send({ model: 42 }), 422, 'validation_error');
    const status = await t.request().get('/v1/admin/reembed').set(bearer(acct.key)).expect(200);
    expect(status.body).toMatchObject({ active_model: 'lexical-hash-v1', dimensions: 384, run: null });
  });

  it('switches models while searches keep answering, then answers from the new vectors', async () => {
    const before = await search('redis eviction policy').expect(200);
    expect(before.body.data.length).toBe(5);

    // Two starts at once: one run, the other start is 409.
    const start = () => t.request().post('/v1/admin/reembed').set(bearer(acct.key)).send({ model: target.model });
    const [started, second] = (await Promise.all([start(), start()])).sort((a, b) => a.status - b.status);
    expect(started!.status).toBe(202);
    expect(started!.body).toMatchObject({ object: 'reembed_run', status: 'running', from_model: 'lexical-hash-v1', target_model: target.model, dimensions: 32 });
    expect(started!.body.total).toBe(STORE_SIZE + 2);
    expectError(second!, 409, 'conflict');

    // Searches throughout the run, back to back: every one answers 200 with results, whichever model is active.
    const statuses: number[] = [];
    const empty: number[] = [];
    const progress: Array<{ done: number; total: number }> = [];
    let finished = false;
    const searching = (async () => {
      while (!finished) {
        const res = await search(TOPICS[statuses.length % TOPICS.length]!);
        statuses.push(res.status);
        if (res.status === 200 && res.body.data.length === 0) empty.push(statuses.length);
        const health = await t.request().get('/v1/health').expect(200);
        if (health.body.reembed) progress.push({ done: health.body.reembed.done, total: health.body.reembed.total });
      }
    })();
    await waitFor(async () => ['completed', 'failed'].includes((await t.request().get('/v1/admin/reembed').set(bearer(acct.key))).body.run.status), 300_000, 'the run ends');
    finished = true;
    await searching;
    const state = await t.request().get('/v1/admin/reembed').set(bearer(acct.key)).expect(200);
    expect(state.body.run).toMatchObject({ status: 'completed', done: STORE_SIZE + 2, total: STORE_SIZE + 2, error: null });
    expect(state.body).toMatchObject({ active_model: target.model, dimensions: 32 });
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(empty).toEqual([]);
    // Health showed the run open (with its progress) between searches.
    expect(progress.length).toBeGreaterThan(0);

    // Exactly one vector per memory, of the new model; the old ones are gone.
    const rows = await t.ctx.db.knex('memories').where('account_id', acct.accountId).select('embedding_model', t.ctx.db.knex.raw('vector_dims(embedding) AS dims'), 'embedding_next');
    expect(rows).toHaveLength(STORE_SIZE);
    expect(new Set(rows.map((r) => `${r.embedding_model}/${r.dims}`))).toEqual(new Set([`${target.model}/32`]));
    expect(rows.filter((r) => r.embedding_next !== null)).toEqual([]);
    // The run is the store's, not a change of any memory's: its staging writes make no version.
    const sample = await t.ctx.db.knex('memories').where('account_id', acct.accountId).first('id');
    const history = await t.request().get(`/v1/memories/${sample.id}/history`).set(bearer(acct.key)).expect(200);
    expect(history.body.data.map((v: { change: string }) => v.change)).toEqual(['create']);

    // The new size's partial HNSW index (made by the run) answers the new model's searches.
    await t.ctx.db.knex.raw('ANALYZE memories');
    const [queryVector] = await t.ctx.embedder.embed(['redis eviction policy']);
    const plan = await memoriesRepository.explainSemantic(
      t.ctx.db.knex,
      { accountId: acct.accountId, includeArchived: false, includeConfidential: false, embeddingModel: target.model },
      toPgVector(queryVector!),
      5,
    );
    expect(plan).toMatch(/memories_vector_32_\w+_idx/);
    const { rows: indexes } = await t.ctx.db.knex.raw(`SELECT indexdef FROM pg_indexes WHERE indexname ~ '^memories_vector_32_'`);
    expect(indexes[0].indexdef).toMatch(/WITH \(m='12', ef_construction='64'\)/);

    // Queries now go through the new model, and new writes are embedded with it.
    expect(t.ctx.embedder.model).toBe(target.model);
    const created = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: 'redis eviction policy after the switch', agent_id: 'bulk' }).expect(201);
    const after = await search('redis eviction policy after the switch').expect(200);
    expect(after.body.data.map((d: { memory: { id: string } }) => d.memory.id)).toContain(created.body.id);
    const decisions = await t.request().post('/v1/decisions/check').set(bearer(acct.key)).send({ query: 'pgvector' }).expect(200);
    expect(decisions.body.data).toHaveLength(1);
    await waitFor(async () => (await t.request().get('/v1/health')).body.reembed === null, 5_000);
  }, 600_000);
});

import { createLogger } from '@ams/core';
import { embeddingQueueRepository } from '@ams/db';
import { embedBatch } from '@ams/ingestion';
import { createIngestion, Ingestion } from '../../src/lib/ingestion';
import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp, waitFor } from '../support/test-app';

describe('v2 memories', () => {
  describe('when no queue can take the job (Redis unreachable)', () => {
    let t: TestApp;
    let acct: TestAccount;
    let ingestion: Ingestion;
    beforeAll(async () => {
      t = await createTestApp({ REDIS_URL: 'redis://127.0.0.1:1' });
      ingestion = createIngestion(t.ctx.config, { ...t.ctx });
      t.ctx.ingestion = ingestion;
      acct = await createAccount(t.ctx);
    });
    afterAll(async () => {
      await ingestion.close();
      await t.close();
    });

    it('embeds inside the request: 202 ready with job_id null, searchable at once', async () => {
      const res = await t.request().post('/v2/memories').set(bearer(acct.key)).send({ content: 'synchronous fallback about lighthouses', agent_id: 'v2' });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'ready', job_id: null, estimated_completion_seconds: 0 });
      const search = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'lighthouses', agent_id: 'v2' });
      expect(search.body.data[0].memory.id).toBe(res.body.id);
      const status = await t.request().get(`/v2/memories/${res.body.id}/status`).set(bearer(acct.key));
      expect(status.body).toEqual({ id: res.body.id, status: 'ready', created_at: expect.any(Number), updated_at: expect.any(Number), error: null });
    });

    it.each([
      [{ agent_id: 'v2' }, 'content'],
      [{ content: ' ', agent_id: 'v2' }, 'content'],
      [{ content: 'x', agent_id: 'v2', webhook_url: 'http://example.com/hook' }, 'webhook_url'],
      [{ content: 'x', agent_id: 'v2', webhook_url: `https://e.com/${'p'.repeat(2_040)}` }, 'webhook_url'],
      [{ content: 'x', agent_id: 'v2', importance: 2 }, 'importance'],
    ])('rejects %j with 422 on %s', async (body, field) => {
      expect(expectError(await t.request().post('/v2/memories').set(bearer(acct.key)).send(body), 422, 'validation_error').details!.map((d) => d.field)).toContain(field);
    });

    it('reports status for v1 memories too, 404 for unknown ids', async () => {
      const v1 = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: 'v1', agent_id: 'v2' });
      expect((await t.request().get(`/v2/memories/${v1.body.id}/status`).set(bearer(acct.key))).body.status).toBe('ready');
      expectError(await t.request().get('/v2/memories/00000000-0000-4000-8000-000000000000/status').set(bearer(acct.key)), 404, 'not_found');
    });

    it('records embedding.completed for webhooks and the one-shot webhook_url', async () => {
      await t.ctx.db.knex('webhooks').insert({ account_id: acct.accountId, url: 'https://h.example.com/all' });
      const res = await t.request().post('/v2/memories').set(bearer(acct.key)).send({ content: 'notify me', agent_id: 'v2', webhook_url: 'https://h.example.com/once' });
      const rows = await t.ctx.db.knex('webhook_deliveries').where({ account_id: acct.accountId, event_type: 'embedding.completed' });
      expect(rows.map((r) => r.target_url ?? 'webhook').sort()).toEqual(['https://h.example.com/once', 'webhook']);
      expect(rows[0].payload.data).toMatchObject({ memory_id: res.body.id, status: 'ready', model: t.ctx.embedder.model, dimensions: 384 });
      expect(new Set(rows.map((r) => r.event_id)).size).toBe(1);
    });

    it('checks dedup when the embedding is ready: a duplicate is set aside with the reason', async () => {
      const first = await t.request().post('/v2/memories').set(bearer(acct.key)).send({ content: 'the same words twice', agent_id: 'dd' });
      const second = await t.request().post('/v2/memories').set(bearer(acct.key)).send({ content: 'the same words twice', agent_id: 'dd', deduplicate: true });
      const status = await t.request().get(`/v2/memories/${second.body.id}/status`).set(bearer(acct.key));
      expect(status.body.error).toBe(`duplicate of ${first.body.id}`);
      expectError(await t.request().get(`/v1/memories/${second.body.id}`).set(bearer(acct.key)), 404, 'not_found');
    });

    it('marks a memory failed with the error after its last attempt, and retry makes it ready', async () => {
      const { body } = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: 'will fail', agent_id: 'f' });
      await t.ctx.db.knex('memories').where({ id: body.id }).update({ embedding_status: 'pending', embedding: null });
      const claimed = await embeddingQueueRepository.claim(t.ctx.db.knex, 10, 60_000, [body.id]);
      const broken = { provider: 'lexical' as const, model: 'broken', dimensions: 384, embed: async () => Promise.reject(new Error('model crashed')) };
      const result = await embedBatch({ db: t.ctx.db.knex, embedder: broken, logger: createLogger('test', t.ctx.config), maxAttempts: 1 }, claimed);
      expect(result.failed).toBe(1);
      const failed = await t.request().get(`/v2/memories/${body.id}/status`).set(bearer(acct.key));
      expect(failed.body).toMatchObject({ status: 'failed', error: 'model crashed' });
      const retried = await t.request().post(`/v2/memories/${body.id}/retry`).set(bearer(acct.key));
      expect(retried.body).toMatchObject({ status: 'ready', error: null });
      expectError(await t.request().post(`/v2/memories/${body.id}/retry`).set(bearer(acct.key)), 409, 'conflict');
    });
  });

  describe('embedded mode: the worker runs in the API process', () => {
    let t: TestApp;
    let acct: TestAccount;
    let ingestion: Ingestion;
    beforeAll(async () => {
      t = await createTestApp({ REDIS_URL: undefined, EMBEDDING_BATCH_WAIT_MS: '100' }, { redis: null });
      ingestion = createIngestion(t.ctx.config, { ...t.ctx });
      t.ctx.ingestion = ingestion;
      acct = await createAccount(t.ctx);
    });
    afterAll(async () => {
      await ingestion.close();
      await t.close();
    });

    it('answers 202 pending with a job id; the memory is fetchable at once, searchable once ready', async () => {
      const res = await t.request().post('/v2/memories').set(bearer(acct.key)).send({ content: 'asynchronous narwhal migration', agent_id: 'emb' });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'pending', job_id: res.body.id });
      expect(res.body.estimated_completion_seconds).toBeGreaterThanOrEqual(1);
      expect((await t.request().get(`/v1/memories/${res.body.id}`).set(bearer(acct.key))).status).toBe(200);
      const before = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'narwhal migration', search_mode: 'keyword' });
      expect(before.body.data).toEqual([]);
      await waitFor(async () => (await t.request().get(`/v2/memories/${res.body.id}/status`).set(bearer(acct.key))).body.status === 'ready');
      const after = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'narwhal migration', search_mode: 'keyword' });
      expect(after.body.data[0].memory.id).toBe(res.body.id);
    });
  });
});

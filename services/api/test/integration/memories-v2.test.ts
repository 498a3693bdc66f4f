import { createLogger } from '@ams/core';
import { Embedder, LexicalEmbedder } from '@ams/embeddings';
import { EmbeddingWorker, ingestionPolicy, workerSettings } from '@ams/ingestion';
import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp, waitFor } from '@ams/testing';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('v2 memories', () => {
  // Split mode with no Redis connection (the worker-process tests stop a real Redis). Split mode
  // needs PostgreSQL: on the PGlite run too, these run on PostgreSQL.
  describe('when no queue can take the job (Redis unreachable)', () => {
    let t: TestApp;
    let acct: TestAccount;
    beforeAll(async () => {
      t = await createTestApp({ REDIS_URL: 'redis://127.0.0.1:1' }, { redis: null, ingestion: true, backend: 'postgres' });
      acct = await createAccount(t.ctx);
    });
    afterAll(() => t.close());
    const create = (body: object, key = acct.key) => t.request().post('/v2/memories').set(bearer(key)).send(body);

    it('embeds inside the request: 202 ready with job_id null, searchable at once', async () => {
      const res = await create({ content: 'synchronous fallback about lighthouses', agent_id: 'v2' });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ id: expect.stringMatching(UUID), status: 'ready', job_id: null, estimated_completion_seconds: 0 });
      const search = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'lighthouses', agent_id: 'v2' });
      expect(search.body.data[0].memory.id).toBe(res.body.id);
      const status = await t.request().get(`/v2/memories/${res.body.id}/status`).set(bearer(acct.key));
      expect(status.body).toEqual({ id: res.body.id, status: 'ready', created_at: expect.any(Number), updated_at: expect.any(Number), error: null, duplicate_of: null, model: t.ctx.embedder.model });
    });

    it('stores every v1 field', async () => {
      const res = await create({ content: 'Prefers dark mode', agent_id: 'v2', metadata: { k: 1 }, memory_type: 'preference', importance: 0.9, visibility: 'confidential' });
      const memory = (await t.request().get(`/v1/memories/${res.body.id}`).set(bearer(acct.key))).body;
      expect(memory).toMatchObject({ content: 'Prefers dark mode', metadata: { k: 1 }, memory_type: 'preference', importance: 0.9, tier: 'hot', visibility: 'confidential' });
    });

    it.each([
      [{ agent_id: 'v2' }, 'content'],
      [{ content: ' ', agent_id: 'v2' }, 'content'],
      [{ content: 'x'.repeat(50_001), agent_id: 'v2' }, 'content'],
      [{ content: 'x', agent_id: 'v2', webhook_url: 'http://example.com/hook' }, 'webhook_url'],
      [{ content: 'x', agent_id: 'v2', webhook_url: 'not a url' }, 'webhook_url'],
      [{ content: 'x', agent_id: 'v2', webhook_url: `https://e.com/${'p'.repeat(2_035)}` }, 'webhook_url'],
      [{ content: 'x', agent_id: 'v2', importance: 2 }, 'importance'],
      [{ content: 'x', agent_id: 'v2', dedup_threshold: 0.49 }, 'dedup_threshold'],
      [{ content: 'x', agent_id: 'v2', memory_type: 'opinion' }, 'memory_type'],
    ])('rejects %# with 422 naming the field', async (body, field) => {
      const before = await t.ctx.db.knex('memories').where('account_id', acct.accountId).count<{ count: string }[]>('* as count');
      expect(expectError(await create(body), 422, 'validation_error').details!.map((d) => d.field)).toContain(field);
      const after = await t.ctx.db.knex('memories').where('account_id', acct.accountId).count<{ count: string }[]>('* as count');
      expect(after[0]!.count).toBe(before[0]!.count);
    });

    it('accepts limits exactly: a 2,048-character https webhook_url and 50,000 characters of content', async () => {
      const url = `https://e.com/${'p'.repeat(2_034)}`;
      expect(url).toHaveLength(2_048);
      expect((await create({ content: 'y'.repeat(50_000), agent_id: 'v2', webhook_url: url })).status).toBe(202);
      for (const dedup_threshold of [0.5, 1]) {
        expect((await create({ content: `bounds ${dedup_threshold}`, agent_id: 'v2', deduplicate: true, dedup_threshold })).status).toBe(202);
      }
    });

    it('needs a key with write scope; the status needs read', async () => {
      expectError(await t.request().post('/v2/memories').send({ content: 'x', agent_id: 'v2' }), 401, 'unauthorized');
      expectError(await create({ content: 'x', agent_id: 'v2' }, await acct.keyWith(['read'])), 403, 'authorization_error');
      const { body } = await create({ content: 'scoped', agent_id: 'v2' });
      expectError(await t.request().get(`/v2/memories/${body.id}/status`).set(bearer(await acct.keyWith(['write']))), 403, 'authorization_error');
    });

    it('reports status for v1 memories too; 404 for unknown, malformed and other accounts’ ids', async () => {
      const v1 = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: 'v1', agent_id: 'v2' });
      expect((await t.request().get(`/v2/memories/${v1.body.id}/status`).set(bearer(acct.key))).body.status).toBe('ready');
      expectError(await t.request().get('/v2/memories/00000000-0000-4000-8000-000000000000/status').set(bearer(acct.key)), 404, 'not_found');
      expectError(await t.request().get('/v2/memories/nope/status').set(bearer(acct.key)), 404, 'not_found');
      const other = await createAccount(t.ctx);
      expectError(await t.request().get(`/v2/memories/${v1.body.id}/status`).set(bearer(other.key)), 404, 'not_found');
      await t.request().delete(`/v1/memories/${v1.body.id}`).set(bearer(acct.key));
      expectError(await t.request().get(`/v2/memories/${v1.body.id}/status`).set(bearer(acct.key)), 404, 'not_found');
    });

    it('records embedding.completed for the account’s webhooks and the one-shot webhook_url, one event', async () => {
      const own = await createAccount(t.ctx);
      await t.ctx.db.knex('webhooks').insert({ account_id: own.accountId, url: 'https://h.example.com/all' });
      const res = await create({ content: 'notify me', agent_id: 'v2', webhook_url: 'https://h.example.com/once' }, own.key);
      const rows = await t.ctx.db.knex('webhook_deliveries').where({ account_id: own.accountId, event_type: 'embedding.completed' });
      expect(rows.map((r) => r.target_url ?? 'webhook').sort()).toEqual(['https://h.example.com/once', 'webhook']);
      expect(rows[0].payload.data).toEqual({
        memory_id: res.body.id,
        agent_id: expect.stringMatching(UUID),
        content: 'notify me',
        status: 'ready',
        model: t.ctx.embedder.model,
        dimensions: 384,
        duplicate_of: null,
      });
      expect(new Set(rows.map((r) => r.event_id)).size).toBe(1);
    });

    it('checks dedup when the embedding is ready: a duplicate is set aside, its status names the original', async () => {
      const first = await create({ content: 'the same words twice', agent_id: 'dd' });
      const second = await create({ content: 'the same words twice', agent_id: 'dd', deduplicate: true });
      const status = await t.request().get(`/v2/memories/${second.body.id}/status`).set(bearer(acct.key));
      expect(status.body).toMatchObject({ status: 'ready', error: null, duplicate_of: first.body.id });
      expectError(await t.request().get(`/v1/memories/${second.body.id}`).set(bearer(acct.key)), 404, 'not_found');
      // Below the threshold, or without deduplicate, both stand.
      const third = await create({ content: 'the same words twice, and then some other words', agent_id: 'dd', deduplicate: true, dedup_threshold: 0.99 });
      expect((await t.request().get(`/v2/memories/${third.body.id}/status`).set(bearer(acct.key))).body.duplicate_of).toBeNull();
    });

    it('retry is refused (409) unless the embedding failed; 404 for unknown ids; needs a key with write scope', async () => {
      const { body } = await create({ content: 'fine as it is', agent_id: 'v2' });
      expectError(await t.request().post(`/v2/memories/${body.id}/retry`).set(bearer(acct.key)), 409, 'conflict');
      expectError(await t.request().post('/v2/memories/00000000-0000-4000-8000-000000000000/retry').set(bearer(acct.key)), 404, 'not_found');
      expectError(await t.request().post('/v2/memories/nope/retry').set(bearer(acct.key)), 404, 'not_found');
      expectError(await t.request().post(`/v2/memories/${body.id}/retry`), 401, 'unauthorized');
      expectError(await t.request().post(`/v2/memories/${body.id}/retry`).set(bearer(await acct.keyWith(['read']))), 403, 'authorization_error');
    });
  });

  describe('when the model fails', () => {
    let t: TestApp;
    let acct: TestAccount;
    let worker: EmbeddingWorker;
    let healed = false;
    /** Until healed, fails every call containing "poison"; embeds the rest. */
    const flaky: Embedder = {
      provider: 'lexical',
      model: new LexicalEmbedder().model,
      dimensions: 384,
      embed: async (texts) => {
        if (!healed && texts.some((x) => x.includes('poison'))) throw new Error('model crashed on this input');
        return new LexicalEmbedder().embed(texts);
      },
    };
    beforeAll(async () => {
      // A backoff long enough that the state after the first failure can be seen however slow the database.
      t = await createTestApp({ REDIS_URL: undefined, EMBEDDING_MAX_ATTEMPTS: '2', EMBEDDING_RETRY_BASE_MS: '1500', EMBEDDING_BATCH_WAIT_MS: '50' }, { redis: null });
      const config = t.ctx.config;
      worker = new EmbeddingWorker({ db: t.ctx.db.knex, embedder: flaky, logger: createLogger('test', config), ...ingestionPolicy(config) }, workerSettings(config));
      worker.start();
      t.ctx.ingestion = { submit: async (_a, id) => (worker.notify(), id), estimateSeconds: async () => 1 };
      acct = await createAccount(t.ctx);
    });
    afterAll(async () => {
      await worker.stop();
      await t.close();
    });
    const status = async (id: string) => (await t.request().get(`/v2/memories/${id}/status`).set(bearer(acct.key))).body;

    it('retries after a backoff, then fails with the error; its batch-mates are embedded', async () => {
      const [bad, good] = await Promise.all(
        ['poison pill memory', 'a healthy memory'].map(async (content) => (await t.request().post('/v2/memories').set(bearer(acct.key)).send({ content, agent_id: 'f' })).body),
      );
      await waitFor(async () => (await status(good.id)).status === 'ready');
      // First attempt failed: pending again, with the error and a retry time. (Its claim counts the
      // attempt before the failure is written: wait for the attempt's end, not its start.)
      const firstAttemptEnded = async () => {
        const row = await t.ctx.db.knex('memories').where({ id: bad.id }).first();
        return row.embedding_attempts === 1 && row.embedding_status !== 'processing';
      };
      await waitFor(firstAttemptEnded);
      const afterFirst = await t.ctx.db.knex('memories').where({ id: bad.id }).first();
      expect(afterFirst).toMatchObject({ embedding_status: 'pending', embedding_error: 'model crashed on this input' });
      expect(afterFirst.embedding_retry_at.getTime()).toBeGreaterThan(afterFirst.updated_at.getTime() + 100);
      await waitFor(async () => (await status(bad.id)).status === 'failed');
      expect(await status(bad.id)).toMatchObject({ status: 'failed', error: 'model crashed on this input' });
      // Keyword search matches any word ("memory" finds the healthy one); the failed memory is never found.
      const search = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'poison pill memory', search_mode: 'keyword' });
      expect(search.status).toBe(200);
      expect(search.body.data.map((d: { id: string }) => d.id)).not.toContain(bad.id);
      const onlyItsWords = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'poison pill', search_mode: 'keyword' });
      expect(onlyItsWords.body.data).toEqual([]);
    });

    it('a failed memory can be retried once the model is fixed: ready and searchable', async () => {
      const { body } = await t.request().post('/v2/memories').set(bearer(acct.key)).send({ content: 'poison again', agent_id: 'f' });
      await waitFor(async () => (await status(body.id)).status === 'failed', 10_000);
      healed = true;
      const retried = await t.request().post(`/v2/memories/${body.id}/retry`).set(bearer(acct.key));
      expect(retried.status).toBe(200);
      expect(retried.body).toMatchObject({ id: body.id, status: 'pending', error: null });
      await waitFor(async () => (await status(body.id)).status === 'ready');
      const search = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'poison again', search_mode: 'keyword' });
      expect(search.body.data.map((d: { memory: { id: string } }) => d.memory.id)).toContain(body.id);
      expectError(await t.request().post(`/v2/memories/${body.id}/retry`).set(bearer(acct.key)), 409, 'conflict');
    });

    it('a PATCH of a failed memory’s content sends it back to the worker: ready, with embedding.completed', async () => {
      healed = false;
      await t.ctx.db.knex('webhooks').insert({ account_id: acct.accountId, url: 'https://h.example.com/all', event_types: ['embedding.completed'] });
      const { body } = await t.request().post('/v2/memories').set(bearer(acct.key)).send({ content: 'poison once more', agent_id: 'f' });
      await waitFor(async () => (await status(body.id)).status === 'failed', 10_000);
      const attemptsBefore = (await t.ctx.db.knex('memories').where({ id: body.id }).first()).embedding_attempts;
      expect((await t.request().patch(`/v1/memories/${body.id}`).set(bearer(acct.key)).send({ content: 'rewritten' })).status).toBe(200);
      await waitFor(async () => (await status(body.id)).status === 'ready');
      const row = await t.ctx.db.knex('memories').where({ id: body.id }).first();
      // Attempts only grow (they fence claims); the retry budget starts again from the base.
      expect(row).toMatchObject({ content: 'rewritten', embedding_attempts: attemptsBefore + 1, embedding_attempts_base: attemptsBefore });
      const events = await t.ctx.db.knex('webhook_deliveries').where({ account_id: acct.accountId, event_type: 'embedding.completed' });
      expect(events.map((e) => e.payload.data.memory_id)).toContain(body.id);
      await t.ctx.db.knex('webhooks').where({ account_id: acct.accountId }).delete();
    });

    it('a model call that hangs fails its batch at the deadline, and is retried', async () => {
      const hanging: Embedder = { ...flaky, embed: () => new Promise(() => undefined) };
      const config = { ...t.ctx.config, embeddingWorker: { ...t.ctx.config.embeddingWorker, batchTimeoutMs: 300 } };
      const own = new EmbeddingWorker({ db: t.ctx.db.knex, embedder: hanging, logger: createLogger('test', config), ...ingestionPolicy(config) }, workerSettings(config));
      await worker.stop();
      const other = await createAccount(t.ctx);
      const { body } = await t.request().post('/v2/memories').set(bearer(other.key)).send({ content: 'never answered', agent_id: 'h' });
      await own.drain();
      await waitFor(async () => (await t.ctx.db.knex('memories').where({ id: body.id }).first()).embedding_error !== null, 5_000);
      expect(await t.ctx.db.knex('memories').where({ id: body.id }).first()).toMatchObject({
        embedding_status: 'pending',
        embedding_error: 'the model took longer than 300 ms',
      });
      await own.stop();
    });

  });

  describe('embedded mode: the worker runs in the API process', () => {
    let t: TestApp;
    let acct: TestAccount;
    // Holds the embedding of one memory until the test has seen it pending, however slow the database.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const lexical = new LexicalEmbedder();
    const gated: Embedder = {
      provider: lexical.provider,
      model: lexical.model,
      dimensions: lexical.dimensions,
      embed: async (texts) => {
        if (texts.some((x) => x.startsWith('asynchronous narwhal'))) await gate;
        return lexical.embed(texts);
      },
    };
    beforeAll(async () => {
      t = await createTestApp({ REDIS_URL: undefined, EMBEDDING_BATCH_WAIT_MS: '100' }, { redis: null, ingestion: true, embedder: gated });
      acct = await createAccount(t.ctx);
    });
    afterAll(() => t.close());

    it('answers 202 pending with a job id; the memory is fetchable at once, searchable once ready', async () => {
      const res = await t.request().post('/v2/memories').set(bearer(acct.key)).send({ content: 'asynchronous narwhal migration', agent_id: 'emb' });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'pending', job_id: res.body.id });
      expect(res.body.estimated_completion_seconds).toBeGreaterThanOrEqual(1);
      expect((await t.request().get(`/v1/memories/${res.body.id}`).set(bearer(acct.key))).status).toBe(200);
      const status = async () => (await t.request().get(`/v2/memories/${res.body.id}/status`).set(bearer(acct.key))).body.status;
      for (const search_mode of ['semantic', 'keyword', 'hybrid']) {
        const before = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'narwhal migration', search_mode });
        expect(before.body.data).toEqual([]);
      }
      release();
      await waitFor(async () => (await status()) === 'ready');
      const after = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'narwhal migration' });
      expect(after.body.data[0].memory.id).toBe(res.body.id);
    });

    it('dedups within one batch: of two near-identical creates, the earlier stands', async () => {
      const post = (content: string) => t.request().post('/v2/memories').set(bearer(acct.key)).send({ content, agent_id: 'dd-batch', deduplicate: true });
      const first = (await post('a twin sentence about tidal pools')).body;
      const second = (await post('a twin sentence about tidal pools')).body;
      const status = async (id: string) => (await t.request().get(`/v2/memories/${id}/status`).set(bearer(acct.key))).body;
      await waitFor(async () => (await status(second.id)).status === 'ready' && (await status(first.id)).status === 'ready');
      expect((await status(first.id)).duplicate_of).toBeNull();
      expect((await status(second.id)).duplicate_of).toBe(first.id);
      const [a, b] = await Promise.all([first.id, second.id].map((id) => t.ctx.db.knex('memories').where({ id }).first('embedding_attempts')));
      expect([a.embedding_attempts, b.embedding_attempts]).toEqual([1, 1]);
    });

    it('embeds memories that arrive together in one batch', async () => {
      const ids = (
        await Promise.all(Array.from({ length: 5 }, (_, i) => t.request().post('/v2/memories').set(bearer(acct.key)).send({ content: `batched ${i}`, agent_id: 'emb' })))
      ).map((r) => r.body.id as string);
      await waitFor(async () => (await t.ctx.db.knex('memories').whereIn('id', ids).where('embedding_status', 'ready')).length === 5);
      const batches = await t.ctx.db.knex('embedding_batches').where('finished_at', '>', new Date(Date.now() - 60_000)).pluck('memories');
      expect(Math.max(...batches)).toBeGreaterThanOrEqual(2);
    });
  });
});

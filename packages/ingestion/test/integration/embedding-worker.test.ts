import { createLogger, type Config } from '@ams/core';
import { Embedder, LexicalEmbedder } from '@ams/embeddings';
import { bearer, createAccount, createTestApp, TestAccount, TestApp, waitFor } from '@ams/testing';
import { EmbeddingWorker, ingestionPolicy, workerSettings } from '../../src';

const lexical = new LexicalEmbedder();
/** An embedder over the lexical one: `hook` runs before each call (to fail or hold it). */
const embedderWith = (hook: (texts: string[]) => Promise<void>): Embedder => ({
  provider: lexical.provider,
  model: lexical.model,
  dimensions: lexical.dimensions,
  embed: async (texts) => {
    await hook(texts);
    return lexical.embed(texts);
  },
});

/**
 * The worker on the lease loop, against PostgreSQL: what only the loop's timers make happen (a
 * retry woken when its backoff ends, a long batch's heartbeat, the hand-back at shutdown). The
 * sweep interval is far beyond the tests, so no sweep does it for them.
 */
describe('EmbeddingWorker', () => {
  let t: TestApp;
  let acct: TestAccount;
  let config: Config;
  const workers: EmbeddingWorker[] = [];
  const worker = (embedder: Embedder) => {
    const w = new EmbeddingWorker({ db: t.ctx.db.knex, embedder, logger: createLogger('test', config), ...ingestionPolicy(config) }, workerSettings(config));
    workers.push(w);
    return w;
  };
  const create = async (w: EmbeddingWorker, content: string): Promise<string> => {
    t.ctx.ingestion = { submit: async (_a, id) => (w.notify(), id), estimateSeconds: async () => 1 };
    return (await t.request().post('/v2/memories').set(bearer(acct.key)).send({ content, agent_id: 'lease' }).expect(202)).body.id;
  };
  const row = (id: string) => t.ctx.db.knex('memories').where({ id }).first();

  beforeAll(async () => {
    t = await createTestApp(
      { REDIS_URL: undefined, EMBEDDING_MAX_ATTEMPTS: '3', EMBEDDING_RETRY_BASE_MS: '400', EMBEDDING_BATCH_WAIT_MS: '20', EMBEDDING_STUCK_AFTER_MS: '1000', EMBEDDING_RECONCILE_INTERVAL_MS: '600000' },
      { redis: null, backend: 'postgres' },
    );
    config = t.ctx.config;
    acct = await createAccount(t.ctx);
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop(0)));
  });
  afterAll(() => t.close());

  it('retries a failed memory when its backoff ends, each backoff twice the one before, then fails it', async () => {
    const calls: number[] = [];
    const w = worker(
      embedderWith(async (texts) => {
        if (texts.some((x) => x.startsWith('always fails'))) {
          calls.push(Date.now());
          throw new Error('model crashed on this input');
        }
      }),
    );
    w.start();
    const id = await create(w, 'always fails here');
    await waitFor(async () => (await row(id)).embedding_status === 'failed');
    expect(await row(id)).toMatchObject({ embedding_attempts: 3, embedding_error: 'model crashed on this input', embedding_retry_at: null });
    expect(calls).toHaveLength(3);
    // Backoffs of 400 ms then 800 ms, each counted from the failure (the model call is instant).
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(400);
    expect(calls[2]! - calls[1]!).toBeGreaterThanOrEqual(800);
    // The worker claims across accounts, and the jest worker's database may still hold an earlier
    // file's pending memories (embedded here, as ready): only the retries and the failure are this memory's.
    expect(w.counters).toMatchObject({ retrying: 2, failed: 1 });
  });

  it('keeps the claim of a batch longer than the stuck time alive: another worker’s sweep leaves it alone', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const slow = worker(embedderWith(() => gate));
    slow.start();
    const id = await create(slow, 'a slow batch');
    const claimed = await waitFor(async () => (await row(id)).embedding_status === 'processing').then(() => row(id));
    // Two heartbeats past the stuck time, by the database's own clock.
    await waitFor(async () => (await row(id)).embedding_started_at.getTime() - claimed.embedding_started_at.getTime() >= 500, 10_000);
    await waitFor(async () => (await t.ctx.db.knex.raw(`SELECT now() - ?::timestamptz > interval '1200 ms' AS past`, [claimed.embedding_started_at])).rows[0].past, 10_000);
    await worker(lexical).sweep();
    expect(await row(id)).toMatchObject({ embedding_status: 'processing', embedding_attempts: 1 });
    open();
    await waitFor(async () => (await row(id)).embedding_status === 'ready');
    expect((await row(id)).embedding_attempts).toBe(1);
  });

  it('on stop, hands a batch still in the model back (pending at once), counts it released, and discards its late outcome', async () => {
    let answer!: () => void;
    const late = new Promise<void>((resolve) => (answer = resolve));
    const hung = worker(embedderWith(() => late));
    const id = await create(hung, 'not answered in time');
    await waitFor(async () => (await row(id)).embedding_status === 'processing');
    await hung.stop(100);
    expect(await row(id)).toMatchObject({ embedding_status: 'pending', embedding_started_at: null, embedding_attempts: 1 });
    expect(hung.counters.released).toBe(1);
    answer();
    await waitFor(() => hung.counters.lost === 1);
    expect(await row(id)).toMatchObject({ embedding_status: 'pending', embedding: null });
  });
});

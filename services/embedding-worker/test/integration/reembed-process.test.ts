/**
 * @jest-environment <rootDir>/test/onnx-environment.js
 */
import crypto from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import {
  bearer,
  createAccount,
  createMigratedScratchDatabase,
  createTestApp,
  ensureGeneratedModel,
  insertMemories,
  startService,
  stopProcess,
  waitFor,
  type TestAccount,
  type TestApp,
} from '@ams/testing';

const WORKER = 'services/embedding-worker/src/main.ts';
const target = ensureGeneratedModel({ kind: 'tiny' });
const STORE_SIZE = 1_500;

/**
 * A re-embed run in the embedding worker process (split mode), SIGKILLed mid-run: a second worker
 * takes the run over once the first one's lease lapses and finishes it, with exactly one vector
 * of the new model per memory. On a database of this file's own (the active model is service-wide).
 */
describe('re-embed in the worker process', () => {
  let scratch: Awaited<ReturnType<typeof createMigratedScratchDatabase>>;
  let t: TestApp;
  let acct: TestAccount;
  const workers = new Set<ChildProcess>();
  const startWorker = () => {
    const child = startService(WORKER, {
      DATABASE_URL: scratch.url,
      REDIS_KEY_PREFIX: `reembed-${crypto.randomBytes(3).toString('hex')}`,
      EMBEDDING_PROVIDER: 'lexical',
      MODEL_DIR: target.modelDir,
      EMBEDDING_WORKER_METRICS_PORT: '0',
      EMBEDDING_MODEL_POLL_MS: '100',
      EMBEDDING_STUCK_AFTER_MS: '1000',
      EMBEDDING_BATCH_SIZE: '16',
    });
    workers.add(child);
    child.once('exit', () => workers.delete(child));
    return child;
  };
  const run = async () => (await t.request().get('/v1/admin/reembed').set(bearer(acct.key)).expect(200)).body.run;

  beforeAll(async () => {
    scratch = await createMigratedScratchDatabase('reembed_worker', 4);
    t = await createTestApp({ MODEL_DIR: target.modelDir, EMBEDDING_ALLOW_REMOTE_MODELS: 'false' }, { db: scratch.db });
    acct = await createAccount(t.ctx);
    await insertMemories(t.ctx, acct.accountId, 'bulk', Array.from({ length: STORE_SIZE }, (_, i) => `memory ${i} about topic ${i % 13}`));
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...workers].map((w) => stopProcess(w, 'SIGKILL')));
    await t?.close();
    await scratch?.drop();
  });

  it('resumes after the worker is killed mid-run and ends with one new-model vector per memory', async () => {
    await t.request().post('/v1/admin/reembed').set(bearer(acct.key)).send({ model: target.model }).expect(202);
    const first = startWorker();
    await waitFor(async () => (await run()).done >= 100, 60_000, 'the first worker embedded some');
    await stopProcess(first, 'SIGKILL');
    const interrupted = await run();
    expect(interrupted.status).toBe('running');
    expect(interrupted.done).toBeLessThan(STORE_SIZE);

    startWorker();
    await waitFor(async () => (await run()).status === 'completed', 120_000, 'the second worker completed the run');
    const done = await run();
    expect(done).toMatchObject({ status: 'completed', target_model: target.model, error: null });
    expect(done.done).toBe(done.total);

    const rows = await scratch.db.knex('memories').where('account_id', acct.accountId).select('embedding_model', scratch.db.knex.raw('vector_dims(embedding) AS dims'), 'embedding_next');
    expect(rows).toHaveLength(STORE_SIZE);
    expect(rows.filter((r) => r.embedding_model !== target.model || r.dims !== 32 || r.embedding_next !== null)).toEqual([]);
    expect(await scratch.db.knex('embedding_state').first()).toMatchObject({ active_model: target.model, dimensions: 32 });
  }, 300_000);
});

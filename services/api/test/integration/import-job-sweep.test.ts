import crypto from 'node:crypto';
import { importJobsRepository } from '@ams/db';
import { Embedder, LexicalEmbedder } from '@ams/embeddings';
import { bearer, createAccount, createTestApp, TestApp, waitFor } from '@ams/testing';

const lexical = new LexicalEmbedder();
// Holds the embedding of an import's "held" memory until the test opens the gate: a job running in this process.
let open!: () => void;
const gate = new Promise<void>((resolve) => (open = resolve));
const gated: Embedder = {
  provider: lexical.provider,
  model: lexical.model,
  dimensions: lexical.dimensions,
  embed: async (texts) => {
    if (texts.some((x) => x.startsWith('held import'))) await gate;
    return lexical.embed(texts);
  },
};

/**
 * A job whose process died mid-import is failed by the sweep of any API process (at start-up, then
 * every IMPORT_STALE_AFTER_MS), with the counts it had, without anyone reading it. The crash itself
 * is in api-process-faults.test.ts; here the dead process's job is a row whose heartbeat stopped.
 */
describe('import job sweep', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ IMPORT_STALE_AFTER_MS: '2000' }, { embedder: gated });
  });
  afterAll(async () => {
    open();
    await t.close();
  });

  const jobs = () => t.ctx.db.knex('import_jobs');
  /** A running job of a process that stopped `agoMs` ago, after committing 400 lines. */
  const leftRunning = async (accountId: string, agoMs: number) => {
    const job = await importJobsRepository.insert(t.ctx.db.knex, accountId, 'skip');
    await jobs()
      .where({ account_id: accountId, id: job.id })
      .update({ lines: 400, records_read: 400, records_stored: 390, records_skipped: 10, heartbeat_at: t.ctx.db.knex.raw(`now() - ? * interval '1 millisecond'`, [agoMs]) });
    return job.id;
  };
  const statusOf = async (id: string) => (await jobs().where({ id }).first()).status as string;

  it('fails the stale running jobs of every account at start-up and then on its timer, leaving live ones running', async () => {
    const [a, b] = [await createAccount(t.ctx), await createAccount(t.ctx)];
    const staleA = await leftRunning(a.accountId, 60_000);
    const staleB = await leftRunning(b.accountId, 60_000);
    // Its process beats (a heartbeat in the future stays fresh for the whole test).
    const live = await leftRunning(a.accountId, -3_600_000);
    t.ctx.imports!.startSweeping();
    await waitFor(async () => (await statusOf(staleA)) === 'failed' && (await statusOf(staleB)) === 'failed', 10_000, 'the start-up sweep');
    const row = await jobs().where({ id: staleA }).first();
    expect(row).toMatchObject({ lines: 400, records_read: 400, records_stored: 390, records_skipped: 10, failure: expect.stringMatching(/^The API stopped during the import/) });
    expect(row.finished_at).not.toBeNull();
    expect(await statusOf(live)).toBe('running');

    // A process that dies later is found by a later sweep.
    await jobs().where({ id: live }).update({ heartbeat_at: t.ctx.db.knex.raw(`now() - interval '1 minute'`) });
    await waitFor(async () => (await statusOf(live)) === 'failed', 10_000, 'a periodic sweep');
    const got = await t.request().get(`/v1/import/jobs/${live}`).set(bearer(a.key));
    expect(got.body).toMatchObject({ status: 'failed', lines: 400, records: { read: 400, stored: 390, skipped: 10, failed: 0 } });
  });

  it('leaves the jobs this process is running to it, however old their heartbeat, and ended jobs alone', async () => {
    const a = await createAccount(t.ctx);
    const send = (content: string) =>
      t.request().post('/v1/import').set(bearer(a.key)).set('Content-Type', 'application/x-ndjson').send(`${JSON.stringify({ type: 'memory', id: crypto.randomUUID(), agent: 'sweeper', content })}\n`);
    const ended = (await send('an import that ends').expect(202)).body.id as string;
    await t.ctx.imports!.settled(ended);
    const held = (await send('held import, embedding until the gate opens').expect(202)).body.id as string;
    const stale = await leftRunning(a.accountId, 60_000);
    await jobs().whereIn('id', [ended, held]).update({ heartbeat_at: t.ctx.db.knex.raw(`now() - interval '1 hour'`) });
    // The timer's sweeps run meanwhile too: whichever sweep failed `stale`, none took `held`.
    expect(await t.ctx.imports!.failStale()).not.toContain(held);
    expect(await statusOf(stale)).toBe('failed');
    expect(await jobs().where({ id: ended }).first()).toMatchObject({ status: 'completed', failure: null, records_stored: 1 });
    expect(await statusOf(held)).toBe('running');
    open();
    await t.ctx.imports!.settled(held);
    expect(await jobs().where({ id: held }).first()).toMatchObject({ status: 'completed', records_stored: 1 });
  });
});

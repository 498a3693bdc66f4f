import { createDatabase } from '@ams/db';
import { completionEstimator } from '../../src';

/** The v2 create's estimate: computed once, then served from the last answer while a fresh one is computed behind it. */
describe('completionEstimator', () => {
  it('waits only for the first answer; later asks get the last one at once, even when its refresh fails', async () => {
    const db = await createDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '', dbPoolMax: 2 });
    const estimator = completionEstimator(db.knex, { batchSize: 32, batchWaitMs: 20 }, 0);
    const first = await estimator.seconds();
    expect(Number.isInteger(first) && first >= 1).toBe(true);
    await db.close();
    // Stale by now (ttl 0) and the database is gone: the refresh fails behind the answer.
    expect(await estimator.seconds()).toBe(first);
    expect(await estimator.seconds()).toBe(first);
  });

  it('a first answer that cannot be computed rejects (the create then says 1 second)', async () => {
    const db = await createDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '', dbPoolMax: 2 });
    await db.close();
    await expect(completionEstimator(db.knex, { batchSize: 32, batchWaitMs: 20 }).seconds()).rejects.toThrow();
  });
});

import { createLogger, loadConfig } from '@ams/core';
import { JobQueue, MAX_REDIS_FAILURE_RETRY_MS } from '../../src/job-queue';
import { TEST_REDIS_URL } from '../../../../test/test-env';

describe('a worker queue after a long Redis outage', () => {
  it("keeps Bee-Queue's BRPOPLPUSH retry wait under a ceiling however many failures doubled it", async () => {
    const logger = createLogger('test', loadConfig({ ...process.env, LOG_LEVEL: 'error' }));
    const q = new JobQueue<{ id: string }>('retry-cap-test', { redisUrl: TEST_REDIS_URL, prefix: `ams-test-${process.pid}`, isWorker: true, logger });
    const internals = q.queue as unknown as { _redisFailureRetryDelay: number };
    // What Bee-Queue does after each failure: 1 s, 2 s, 4 s, … 30 failures in, 12 days.
    internals._redisFailureRetryDelay = 1000;
    for (let i = 0; i < 30; i++) internals._redisFailureRetryDelay = internals._redisFailureRetryDelay * 2;
    expect(internals._redisFailureRetryDelay).toBe(MAX_REDIS_FAILURE_RETRY_MS);
    await q.close();
  });
});

import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { createLogger, loadConfig } from '@ams/core';
import { freePort, startRedis, stopProcess } from '@ams/testing/processes';
import { waitFor } from '@ams/testing/wait';
import { JobQueue } from '../../src/job-queue';

const blockedClients = async (port: number) => {
  const info = await new Promise<string>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.write('INFO clients\r\n'));
    let out = '';
    s.on('data', (d) => {
      out += d;
      if (!out.includes('blocked_clients')) return;
      s.end();
      resolve(out);
    });
    s.on('error', () => resolve(''));
  });
  return Number(/blocked_clients:(\d+)/.exec(info)?.[1] ?? 0);
};

/**
 * Bee-Queue waits 1 s after a BRPOPLPUSH that Redis dropped, and doubles the wait after each further
 * drop until the worker next takes a job: five restarts of an idle worker's Redis would mean a 16 s
 * wait before it looks for jobs again (thirty, twelve days). The queue replaces its Bee-Queue
 * instance when its connection comes back, so the wait starts from none after every restart.
 * (Commands sent while Redis is down wait in the client's offline queue rather than fail, so only a
 * restart while the BRPOPLPUSH is in flight counts as a failure.)
 */
const FAILURES = 5;
const UNCAPPED_WAIT_MS = 1000 * 2 ** (FAILURES - 1);
/** Reconnecting and reloading the scripts after the last restart, on a loaded machine. */
const SLACK_MS = 4_000;

describe('a worker queue after repeated Redis restarts', () => {
  let redis: ChildProcess | undefined;
  let worker: JobQueue<{ n: number }> | undefined;
  let producer: JobQueue<{ n: number }> | undefined;
  afterEach(async () => {
    await producer?.close(1_000);
    await worker?.close(1_000);
    await stopProcess(redis, 'SIGKILL');
  });

  it('takes jobs again within seconds once Redis is back, however often it went away', async () => {
    expect(SLACK_MS).toBeLessThan(UNCAPPED_WAIT_MS);
    const port = await freePort();
    redis = await startRedis(port);
    const logger = createLogger('test', loadConfig({ ...process.env, LOG_LEVEL: 'error' }));
    const options = { redisUrl: `redis://127.0.0.1:${port}`, prefix: 'retry-cap', logger };
    worker = new JobQueue<{ n: number }>('retry-cap-test', { ...options, isWorker: true });
    producer = new JobQueue<{ n: number }>('retry-cap-test', { ...options, isWorker: false });
    const done: number[] = [];
    worker.process(1, async ({ n }) => void done.push(n));

    expect(await producer.enqueue('before', { n: 1 })).toBe(true);
    await waitFor(() => done.includes(1), 10_000, 'the job before the restarts');

    for (let k = 1; k <= FAILURES; k++) {
      // The worker's BRPOPLPUSH is blocked in Redis: a restart now drops it.
      await waitFor(async () => (await blockedClients(port)) === 1, 30_000, `the worker's BRPOPLPUSH before restart ${k}`);
      await stopProcess(redis, 'SIGKILL');
      await waitFor(() => !worker!.canTakeJobs(), 10_000, `the worker saw restart ${k}`);
      redis = await startRedis(port);
    }
    await waitFor(() => producer!.canTakeJobs(), 10_000, 'the producer reconnected');
    expect(await producer.enqueue('after', { n: 2 })).toBe(true);
    const back = Date.now();
    await waitFor(() => done.includes(2), SLACK_MS, 'the job after the restarts');
    expect(Date.now() - back).toBeLessThan(UNCAPPED_WAIT_MS);
  }, 120_000);
});

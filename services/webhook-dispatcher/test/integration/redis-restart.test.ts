import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { createLogger, loadConfig } from '@ams/core';
import { accountsRepository, webhookDeliveriesRepository, webhooksRepository, createDatabase, type Database, type Knex } from '@ams/db';
import { JobQueue, QUEUES, WebhookJob } from '@ams/jobs';
import { startHttpsReceiver, HttpsReceiver, startDispatcher, stopProcess, freePort, startRedis, waitFor } from '@ams/testing';

/** With the outbox sweep slowed to a minute, only the queue can deliver: this tests the queue path. */
describe('webhook queue across a Redis restart', () => {
  let database: Database;
  let db: Knex;
  let receiver: HttpsReceiver;
  let redis: ChildProcess | undefined;
  let dispatcher: ChildProcess | undefined;
  let producer: JobQueue<WebhookJob> | undefined;
  let caDir: string | undefined;

  beforeAll(async () => {
    database = await createDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '', dbPoolMax: 2 });
    db = database.knex;
    receiver = await startHttpsReceiver();
  });
  afterAll(async () => {
    await producer?.close(1_000);
    await stopProcess(dispatcher, 'SIGKILL');
    await stopProcess(redis, 'SIGKILL');
    if (caDir) fs.rmSync(caDir, { recursive: true, force: true });
    await receiver.close();
    await database.close();
  });

  it('keeps delivering jobs after Redis restarts (scripts reloaded) and after a FLUSHALL, under a running dispatcher', async () => {
    const port = await freePort();
    const redisUrl = `redis://127.0.0.1:${port}`;
    redis = await startRedis(port);
    caDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ca-'));
    const caFile = path.join(caDir, 'ca.pem');
    fs.writeFileSync(caFile, receiver.ca);
    const account = (await accountsRepository.insert(db, { email: `r-${crypto.randomUUID()}@x.test`, passwordHash: null }))!;
    await webhooksRepository.insert(db, account.id, { url: receiver.url });
    const record = async () =>
      db.transaction((trx) =>
        webhookDeliveriesRepository.recordEvent(trx, { accountId: account.id, type: 'memory.created', data: { n: 1 }, eventId: crypto.randomUUID(), createdAt: new Date() }),
      );
    const arrived = (eventId: string) => receiver.requests.some((r) => r.headers['x-service-delivery'] === eventId);

    // Recorded before the dispatcher starts and never enqueued: only its start-up sweep can deliver
    // it, so once it has arrived that sweep is over and the next one is a minute away.
    const probe = await record();
    const prefix = `restart-${crypto.randomBytes(3).toString('hex')}`;
    dispatcher = startDispatcher({ REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, WEBHOOK_RECONCILE_INTERVAL_MS: '60000', WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_CA_FILE: caFile });
    const config = loadConfig({ ...process.env, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix });
    producer = new JobQueue<WebhookJob>(QUEUES.webhooks, { redisUrl, prefix, isWorker: false, logger: createLogger('test', config) });
    await waitFor(async () => arrived(probe.eventId), 15_000, 'the start-up sweep delivers the probe');

    // From here on only the queue can deliver.
    const sendOne = async () => {
      const { eventId, deliveryIds } = await record();
      // Retried until the queue takes it: Redis may still be coming back.
      await waitFor(() => producer!.enqueue(deliveryIds[0]!, { accountId: account.id, deliveryId: deliveryIds[0]! }), 10_000);
      await waitFor(async () => arrived(eventId), 15_000);
    };
    await sendOne();

    await stopProcess(redis, 'SIGKILL'); // scripts and queue keys gone
    redis = await startRedis(port);
    await sendOne();

    // FLUSHALL under the running dispatcher and producer: the queue's keys go, its scripts stay.
    execFileSync('redis-cli', ['-p', String(port), 'FLUSHALL']);
    await sendOne();
  }, 60_000);
});

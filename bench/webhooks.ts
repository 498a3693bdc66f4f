/**
 * npm run bench:webhooks [-- --n 2000 --concurrency 10]
 * Records N events in the outbox, then times the real dispatcher delivering them over HTTPS to a
 * local receiver (signed, SSRF-guarded connections). Prints deliveries per second.
 */
import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { SecretBox } from '@ams/core';
import { webhookDeliveriesRepository, webhooksRepository } from '@ams/db';
import { OutboxReconciler, WebhookDispatcher, webhookUserAgent } from '@ams/webhooks';
import { arg, startBenchServer } from './support';
import { startHttpsReceiver } from '@ams/testing';

async function main(): Promise<void> {
  const n = arg('n', 2_000);
  const concurrency = arg('concurrency', 10);
  const server = await startBenchServer();
  const receiver = await startHttpsReceiver();
  try {
    const db = server.ctx.db.knex;
    const accountId = (await db('accounts').first('id')).id as string;
    await webhooksRepository.insert(db, accountId, { url: receiver.url, secret: 'bench-secret' });
    for (let i = 0; i < n; i += 500) {
      await db.transaction(async (trx) => {
        for (let j = i; j < Math.min(n, i + 500); j++) {
          await webhookDeliveriesRepository.recordEvent(trx, {
            accountId,
            type: 'memory.created',
            data: { memory_id: crypto.randomUUID(), content: `event ${j}`, status: 'ready' },
            eventId: crypto.randomUUID(),
            createdAt: new Date(),
          });
        }
      });
    }
    const dispatcher = new WebhookDispatcher(db, server.ctx.logger, {
      timeoutMs: 30_000,
      retryDelaysMs: [5_000, 25_000, 125_000],
      allowLoopback: true,
      ca: receiver.ca,
      concurrency,
      reconcileIntervalMs: 200,
      userAgent: webhookUserAgent('bench'),
      secrets: new SecretBox(crypto.randomBytes(32)),
    });
    const reconciler = new OutboxReconciler(dispatcher, 200, server.ctx.logger);
    const started = performance.now();
    await reconciler.start();
    for (;;) {
      const row = await db('webhook_deliveries').where({ account_id: accountId, status: 'succeeded' }).count<{ count: number }[]>('* as count');
      if (Number(row[0]!.count) >= n) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    reconciler.stop();
    await dispatcher.stop();
    console.log(`delivered ${n} signed webhooks over HTTPS in ${seconds.toFixed(2)} s: ${Math.round(n / seconds)} deliveries/s (concurrency ${concurrency})`);
    console.log(`receiver saw ${receiver.requests.length} requests`);
  } finally {
    await receiver.close();
    await server.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

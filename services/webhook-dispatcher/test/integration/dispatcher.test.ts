import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { accountsRepository, webhookDeliveriesRepository, webhooksRepository, createDatabase, type Database, type Knex } from '@ams/db';
import type { EventType } from '@ams/memories';
import { freePort, startHttpsReceiver, HttpsReceiver, ReceiverHandler, startCanary, startDispatcher, stopProcess, waitFor } from '@ams/testing';

describe('webhook-dispatcher (separate process, real HTTPS receiver)', () => {
  let database: Database;
  let db: Knex;
  let caFile: string;
  let receiver: HttpsReceiver;
  let handler: ReceiverHandler = (_r, res) => res.writeHead(200).end('ok');
  const children: ChildProcess[] = [];
  const dispatcher = (env: Record<string, string> = {}) => {
    const child = startDispatcher({ WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_CA_FILE: caFile, ...env });
    children.push(child);
    return child;
  };

  beforeAll(async () => {
    database = await createDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '', dbPoolMax: 4 });
    db = database.knex;
    // Deliveries other test files left behind point at hosts that do not exist here.
    await db('webhook_deliveries').whereIn('status', ['pending', 'delivering']).update({ status: 'failed' });
    receiver = await startHttpsReceiver({ handler: (r, res) => handler(r, res) });
    caFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ca-')), 'ca.pem');
    fs.writeFileSync(caFile, receiver.ca);
  });
  afterEach(async () => {
    for (const c of children.splice(0)) await stopProcess(c, 'SIGKILL');
    handler = (_r, res) => res.writeHead(200).end('ok');
  });
  afterAll(async () => {
    fs.rmSync(path.dirname(caFile), { recursive: true, force: true });
    await receiver.close();
    await database.close();
  });

  async function setup(opts: { secret?: string; eventTypes?: string[]; url?: string } = {}) {
    const account = (await accountsRepository.insert(db, { email: `d-${crypto.randomUUID()}@x.test`, passwordHash: null }))!;
    const webhook = await webhooksRepository.insert(db, account.id, { url: opts.url ?? receiver.url, secret: opts.secret ?? null, eventTypes: opts.eventTypes ?? [] });
    const emit = async (type: EventType = 'memory.created', data: Record<string, unknown> = { memory_id: crypto.randomUUID(), content: 'hello' }) =>
      db.transaction((trx) => webhookDeliveriesRepository.recordEvent(trx, { accountId: account.id, type, data, eventId: crypto.randomUUID(), createdAt: new Date() }));
    const delivery = async (eventId: string) => db('webhook_deliveries').where({ account_id: account.id, event_id: eventId }).first();
    return { account, webhook, emit, delivery };
  }
  const received = (eventId: string) => receiver.requests.filter((r) => r.headers['x-service-delivery'] === eventId);

  it('delivers the event body, signed with HMAC-SHA256 over the raw bytes and with Standard Webhooks headers', async () => {
    const { emit, delivery } = await setup({ secret: 'top-secret' });
    dispatcher();
    const { eventId } = await emit('memory.created', { memory_id: 'm-1', agent_id: 'a-1', content: 'héllo wörld', status: 'ready' });
    await waitFor(async () => (await delivery(eventId))?.status === 'succeeded');
    const [req] = received(eventId);
    const body = JSON.parse(req!.rawBody.toString('utf8'));
    expect(body).toEqual({ id: eventId, type: 'memory.created', created_at: expect.stringMatching(/Z$/), data: { memory_id: 'm-1', agent_id: 'a-1', content: 'héllo wörld', status: 'ready' } });
    const expected = `sha256=${crypto.createHmac('sha256', 'top-secret').update(req!.rawBody).digest('hex')}`;
    expect(req!.headers['x-service-signature']).toBe(expected);
    expect(req!.headers['x-service-event']).toBe('memory.created');
    const wh = new Webhook(Buffer.from('top-secret').toString('base64'));
    expect(() => wh.verify(req!.rawBody.toString('utf8'), req!.headers as Record<string, string>)).not.toThrow();
    expect((await delivery(eventId)).attempts).toBe(1);
  });

  it('serves Prometheus metrics on its own port: deliveries by outcome, receiver latency, the outbox', async () => {
    const { emit, delivery } = await setup();
    let calls = 0;
    handler = (_r, res) => res.writeHead(++calls < 2 ? 500 : 200).end();
    const port = await freePort();
    dispatcher({ WEBHOOK_DISPATCHER_METRICS_PORT: String(port) });
    const { eventId } = await emit();
    await waitFor(async () => (await delivery(eventId))?.status === 'succeeded');
    let text = '';
    await waitFor(async () => {
      text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text(), () => '');
      return /^ams_webhook_deliveries_total\{outcome="delivered"\} 1$/m.test(text);
    });
    expect(text).toMatch(/^ams_webhook_deliveries_total\{outcome="retry"\} 1$/m);
    expect(text).toMatch(/^ams_webhook_delivery_duration_seconds_count\{outcome="delivered"\} 1$/m);
    expect(text).toMatch(/^ams_webhook_outbox_depth\{status="pending"\} \d+$/m);
    expect(text).toMatch(/^ams_webhook_outbox_oldest_due_age_seconds [\d.e+-]+$/m);
    expect(text).toContain('ams_webhook_dispatcher_process_cpu_seconds_total');
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  });

  it('sends no signature without a secret, and filters by event type', async () => {
    const { emit, delivery } = await setup({ eventTypes: ['memory.deleted'] });
    dispatcher();
    const skipped = await emit('memory.created');
    expect(skipped.deliveryIds).toEqual([]);
    const { eventId } = await emit('memory.deleted');
    await waitFor(async () => (await delivery(eventId))?.status === 'succeeded');
    expect(received(eventId)[0]!.headers).not.toHaveProperty('x-service-signature');
  });

  it('retries a 500 and succeeds on the third try with the same event id', async () => {
    const { emit, delivery } = await setup();
    let calls = 0;
    handler = (_r, res) => res.writeHead(++calls < 3 ? 500 : 200).end();
    dispatcher();
    const { eventId } = await emit();
    await waitFor(async () => (await delivery(eventId))?.status === 'succeeded');
    expect(received(eventId)).toHaveLength(3);
    expect((await delivery(eventId)).attempts).toBe(3);
  });

  it('retries a receiver slower than the timeout', async () => {
    const { emit, delivery } = await setup();
    let calls = 0;
    handler = (_r, res) => {
      if (++calls === 1) setTimeout(() => res.writeHead(200).end(), 1_500);
      else res.writeHead(200).end();
    };
    dispatcher();
    const { eventId } = await emit();
    await waitFor(async () => (await delivery(eventId))?.status === 'succeeded');
    const row = await delivery(eventId);
    expect(row.attempts).toBe(2);
  });

  it('fails a delivery for good after 3 retries (4 attempts), keeping it', async () => {
    const { emit, delivery } = await setup();
    handler = (_r, res) => res.writeHead(503).end('down');
    dispatcher();
    const { eventId } = await emit();
    await waitFor(async () => (await delivery(eventId))?.status === 'failed');
    const row = await delivery(eventId);
    expect(row).toMatchObject({ attempts: 4, last_status_code: 503, response_excerpt: 'down' });
    expect(received(eventId)).toHaveLength(4);
  });

  it('disables the webhook on 410 Gone; a disabled webhook gets nothing', async () => {
    const { emit, delivery, webhook, account } = await setup();
    handler = (_r, res) => res.writeHead(410).end();
    dispatcher();
    const { eventId } = await emit();
    await waitFor(async () => (await delivery(eventId))?.status === 'failed');
    const hook = await webhooksRepository.find(db, account.id, webhook.id);
    expect(hook).toMatchObject({ enabled: false, disabled_reason: 'the receiver answered 410 Gone' });
    const later = await emit();
    expect(later.deliveryIds).toEqual([]);
  });

  it('delivers after the dispatcher is SIGKILLed mid-delivery (at least once)', async () => {
    const { emit, delivery } = await setup();
    let calls = 0;
    handler = (_r, res) => {
      if (++calls === 1) return; // hang: the dispatcher dies while waiting
      res.writeHead(200).end();
    };
    const first = dispatcher({ WEBHOOK_TIMEOUT_MS: '1000' });
    const { eventId } = await emit();
    await waitFor(async () => received(eventId).length === 1);
    await stopProcess(first, 'SIGKILL');
    dispatcher();
    await waitFor(async () => (await delivery(eventId))?.status === 'succeeded');
    expect(received(eventId).length).toBeGreaterThanOrEqual(2);
  });

  it('two dispatchers deliver each event once', async () => {
    const { emit } = await setup();
    dispatcher();
    dispatcher();
    const events = await Promise.all(Array.from({ length: 20 }, () => emit()));
    const ids = events.map((e) => e.eventId);
    await waitFor(async () => ids.every((id) => received(id).length >= 1));
    // A delivery is marked succeeded only after its last send was answered, and nothing claims it
    // after that: once all are succeeded, every send there will ever be has arrived.
    const succeeded = async () => (await db('webhook_deliveries').whereIn('event_id', ids).where({ status: 'succeeded' })).length === ids.length;
    await waitFor(succeeded);
    for (const id of ids) expect(received(id)).toHaveLength(1);
  });

  it('refuses loopback receivers unless the test setting allows them: the canary sees no connection', async () => {
    const canary = await startCanary();
    try {
      const { emit, delivery } = await setup({ url: `https://127.0.0.1:${canary.port}/hook` });
      dispatcher({ WEBHOOK_ALLOW_LOOPBACK: 'false' });
      const { eventId } = await emit();
      await waitFor(async () => (await delivery(eventId))?.status === 'failed');
      expect((await delivery(eventId)).last_error).toMatch(/refused|not public|loopback/i);
      expect(canary.connections).toBe(0);
    } finally {
      await canary.close();
    }
  });
});

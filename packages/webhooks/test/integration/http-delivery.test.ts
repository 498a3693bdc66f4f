import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { buildDeliveryHeaders, deliverOnce, standardWebhookSecretFor, webhookUserAgent } from '../../src';
import { startCanary, type Canary, startHttpsReceiver, type HttpsReceiver, type ReceiverHandler } from '@ams/testing';

const event = {
  id: 'evt_0b6f3c7e-5d1a-4c1e-9a51-0f4a2d9b1c11',
  type: 'memory.created',
  created_at: '2024-05-01T12:00:00.000Z',
  // Non-ASCII on purpose: signatures must cover the UTF-8 bytes actually sent.
  data: { memory_id: 'a3c1f7e2-6b0d-4f5e-8c1a-2b3d4e5f6a7b', agent_id: 'ag', content: 'café ☕', status: 'ready' },
};
const rawBody = JSON.stringify(event);

const headersFor = (secret: string | null): Record<string, string> =>
  buildDeliveryHeaders({
    eventId: event.id,
    eventType: event.type,
    secret,
    rawBody,
    timestampSeconds: Math.floor(Date.now() / 1000),
    userAgent: webhookUserAgent('0.1.0'),
  });

describe('deliverOnce against a real HTTPS receiver (loopback allowed for the test)', () => {
  const receivers: HttpsReceiver[] = [];
  const canaries: Canary[] = [];
  const receiver = async (handler?: ReceiverHandler): Promise<HttpsReceiver> => {
    const started = await startHttpsReceiver(handler ? { handler } : {});
    receivers.push(started);
    return started;
  };
  const deliver = (target: HttpsReceiver, headers: Record<string, string>, timeoutMs = 5_000) =>
    deliverOnce({ url: target.url, headers, body: rawBody }, { timeoutMs, allowLoopback: true, ca: target.ca });

  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    await Promise.all(canaries.splice(0).map((c) => c.close()));
  });

  it('delivers a signed event: 200 is ok and the body and headers arrive intact', async () => {
    const secret = 'my webhook secret ✓';
    const target = await receiver((_req, res) => res.writeHead(200).end('thanks'));
    const outcome = await deliver(target, headersFor(secret));

    expect(outcome).toMatchObject({ ok: true, statusCode: 200, error: null, responseExcerpt: 'thanks', retryable: false, gone: false });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    const [received] = await target.waitForRequests(1);
    expect(received!.method).toBe('POST');
    expect(received!.rawBody.equals(Buffer.from(rawBody, 'utf8'))).toBe(true);
    expect(received!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'AgentMemoryService-Webhooks/0.1.0',
      'x-service-event': 'memory.created',
      'x-service-delivery': event.id,
      'webhook-id': event.id,
    });

    // The spec's signature, recomputed independently over the bytes that arrived.
    const expected = `sha256=${crypto.createHmac('sha256', secret).update(received!.rawBody).digest('hex')}`;
    expect(received!.headers['x-service-signature']).toBe(expected);

    // Standard Webhooks: the reference library verifies with the documented key mapping.
    const standardHeaders = {
      'webhook-id': String(received!.headers['webhook-id']),
      'webhook-timestamp': String(received!.headers['webhook-timestamp']),
      'webhook-signature': String(received!.headers['webhook-signature']),
    };
    const viaUtf8Key = new Webhook(Buffer.from(secret, 'utf8').toString('base64'));
    expect(viaUtf8Key.verify(received!.rawBody.toString('utf8'), standardHeaders)).toEqual(event);
    expect(new Webhook(standardWebhookSecretFor(secret)).verify(received!.rawBody.toString('utf8'), standardHeaders)).toEqual(event);
    expect(() => new Webhook(Buffer.from('other').toString('base64')).verify(received!.rawBody.toString('utf8'), standardHeaders)).toThrow();
  });

  it('sends no signature without a secret', async () => {
    const target = await receiver();
    const outcome = await deliver(target, headersFor(null));
    expect(outcome.ok).toBe(true);
    const [received] = await target.waitForRequests(1);
    expect(received!.headers['x-service-signature']).toBeUndefined();
    expect(received!.headers['webhook-signature']).toBeUndefined();
    expect(received!.headers['webhook-id']).toBe(event.id);
  });

  it('500 is a retryable failure', async () => {
    const target = await receiver((_req, res) => res.writeHead(500).end('boom'));
    const outcome = await deliver(target, headersFor('s'));
    expect(outcome).toMatchObject({ ok: false, statusCode: 500, error: 'HTTP 500', responseExcerpt: 'boom', retryable: true, gone: false });
  });

  it('other 4xx are retryable failures too', async () => {
    const target = await receiver((_req, res) => res.writeHead(400).end());
    expect(await deliver(target, headersFor('s'))).toMatchObject({ ok: false, statusCode: 400, retryable: true, gone: false });
  });

  it('410 Gone is final and flags the webhook as gone', async () => {
    const target = await receiver((_req, res) => res.writeHead(410).end());
    const outcome = await deliver(target, headersFor('s'));
    expect(outcome).toMatchObject({ ok: false, statusCode: 410, retryable: false, gone: true });
  });

  it('does not follow a redirect: the Location target gets no connection', async () => {
    const canary = await startCanary();
    canaries.push(canary);
    const location = `https://127.0.0.1:${canary.port}/elsewhere`;
    const target = await receiver((_req, res) => res.writeHead(302, { location }).end());
    const outcome = await deliver(target, headersFor('s'));
    expect(outcome).toMatchObject({ ok: false, statusCode: 302, retryable: true, gone: false });
    expect(outcome.error).toContain(location);
    // The delivery has settled: a followed redirect would already have connected.
    expect(canary.connections).toBe(0);
    expect(target.requests).toHaveLength(1);
  });

  it('times out a slow receiver (no response headers in time)', async () => {
    const target = await receiver((_req, res) => {
      const late = setTimeout(() => res.writeHead(200).end(), 2_000);
      res.on('close', () => clearTimeout(late));
    });
    const outcome = await deliver(target, headersFor('s'), 300);
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: 'timeout after 300ms', retryable: true, gone: false });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
    expect(outcome.durationMs).toBeLessThan(2_000);
  });

  it('times out a receiver that sends 200 but stalls the body', async () => {
    const target = await receiver((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    const outcome = await deliver(target, headersFor('s'), 300);
    expect(outcome).toMatchObject({ ok: false, statusCode: 200, error: 'timeout after 300ms', retryable: true });
  });

  it('reads at most 1 KB of a large response body', async () => {
    const big = 'x'.repeat(5 * 1024 * 1024);
    const target = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.on('error', () => undefined); // the client hangs up mid-body on purpose
      res.end(big);
    });
    const outcome = await deliver(target, headersFor('s'));
    expect(outcome.ok).toBe(true);
    expect(outcome.responseExcerpt).toBe('x'.repeat(1024));
  });

  it('a receiver that is down is a retryable network failure', async () => {
    const closed = await startCanary();
    await closed.close(); // its port is now (almost certainly) free: connection refused
    const outcome = await deliverOnce(
      { url: `https://127.0.0.1:${closed.port}/hook`, headers: headersFor('s'), body: rawBody },
      { timeoutMs: 5_000, allowLoopback: true },
    );
    expect(outcome).toMatchObject({ ok: false, statusCode: null, retryable: true, gone: false });
    expect(outcome.error).toMatch(/ECONNREFUSED/);
  });

  it('a malformed header is reported, not thrown, and not retried', async () => {
    const target = await receiver();
    const outcome = await deliver(target, { ...headersFor('s'), 'x-bad': 'line\nbreak' });
    expect(outcome).toMatchObject({ ok: false, statusCode: null, retryable: false });
    expect(outcome.error).toMatch(/^invalid request/);
    expect(target.requests).toHaveLength(0);
  });

  it('fails (retryable) when the certificate is not trusted', async () => {
    const target = await receiver();
    const outcome = await deliverOnce({ url: target.url, headers: headersFor('s'), body: rawBody }, { timeoutMs: 5_000, allowLoopback: true });
    expect(outcome).toMatchObject({ ok: false, statusCode: null, retryable: true });
    expect(outcome.error).toMatch(/certificate/i);
    expect(target.requests).toHaveLength(0);
  });
});

import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  buildDeliveryHeaders,
  signatureHeader,
  standardWebhookHeaders,
  standardWebhookKey,
  standardWebhookSecretFor,
  webhookUserAgent,
} from '../../src/signing';

const body = '{"id":"evt_1","type":"memory.created","data":{"content":"naïve"}}';
const now = () => Math.floor(Date.now() / 1000);

describe('signatureHeader (X-Service-Signature)', () => {
  it('is sha256= + lowercase hex HMAC-SHA256 of the raw body keyed with the secret', () => {
    const expected = crypto.createHmac('sha256', 'topsecret').update(Buffer.from(body, 'utf8')).digest('hex');
    expect(signatureHeader('topsecret', body)).toBe(`sha256=${expected}`);
    expect(signatureHeader('topsecret', Buffer.from(body, 'utf8'))).toBe(`sha256=${expected}`);
    expect(signatureHeader('topsecret', body)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('matches a known HMAC-SHA256 test vector (RFC 4231 case 2)', () => {
    expect(signatureHeader('Jefe', 'what do ya want for nothing?')).toBe(
      'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });
});

describe('standardWebhookHeaders', () => {
  it('signs "id.timestamp.body" so the standardwebhooks library verifies it (plain secret)', () => {
    const secret = 'plain secret, not base64 ✓';
    const headers = standardWebhookHeaders(secret, 'evt_1', now(), body);
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
    const receiver = new Webhook(Buffer.from(secret, 'utf8').toString('base64'));
    expect(receiver.verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('treats a whsec_ secret the Standard Webhooks way (base64 key)', () => {
    const secret = `whsec_${crypto.randomBytes(24).toString('base64')}`;
    const headers = standardWebhookHeaders(secret, 'evt_2', now(), body);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('falls back to the UTF-8 bytes for a whsec_ secret that is not valid base64', () => {
    const secret = 'whsec_not base64!';
    expect(standardWebhookKey(secret).equals(Buffer.from(secret, 'utf8'))).toBe(true);
    const headers = standardWebhookHeaders(secret, 'evt_3', now(), body);
    expect(new Webhook(standardWebhookSecretFor(secret)).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('is rejected by a receiver with another key or a stale timestamp', () => {
    const headers = standardWebhookHeaders('s1', 'evt_4', now(), body);
    expect(() => new Webhook(standardWebhookSecretFor('s2')).verify(body, { ...headers })).toThrow();
    const stale = standardWebhookHeaders('s1', 'evt_4', now() - 3600, body);
    expect(() => new Webhook(standardWebhookSecretFor('s1')).verify(body, { ...stale })).toThrow(/too old/);
  });
});

describe('buildDeliveryHeaders', () => {
  const base = { eventId: 'evt_9', eventType: 'memory.deleted', rawBody: body, timestampSeconds: 1_700_000_000.7, userAgent: webhookUserAgent('1.2.3') };

  it('with a secret: both signatures and the service headers', () => {
    const headers = buildDeliveryHeaders({ ...base, secret: 'k' });
    expect(headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'AgentMemoryService-Webhooks/1.2.3',
      'x-service-event': 'memory.deleted',
      'x-service-delivery': 'evt_9',
      'x-service-signature': signatureHeader('k', body),
      ...standardWebhookHeaders('k', 'evt_9', 1_700_000_000, body),
    });
    expect(headers['webhook-timestamp']).toBe('1700000000');
  });

  it('without a secret (null, undefined or empty): no signature headers, id and timestamp still sent', () => {
    for (const secret of [null, undefined, '']) {
      const headers = buildDeliveryHeaders({ ...base, secret });
      expect(headers['x-service-signature']).toBeUndefined();
      expect(headers['webhook-signature']).toBeUndefined();
      expect(headers['webhook-id']).toBe('evt_9');
      expect(headers['webhook-timestamp']).toBe('1700000000');
    }
  });

  it('X-Service-Delivery is the event id unless a delivery id is given', () => {
    expect(buildDeliveryHeaders({ ...base, deliveryId: 'dlv_1' })['x-service-delivery']).toBe('dlv_1');
    expect(buildDeliveryHeaders({ ...base, deliveryId: 'dlv_1' })['webhook-id']).toBe('evt_9');
  });
});

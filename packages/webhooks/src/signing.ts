import crypto from 'node:crypto';

/**
 * Signing of webhook deliveries. Two signatures are sent:
 *
 * 1. `X-Service-Signature: sha256=<hex>` — the spec's signature: HMAC-SHA256 of the raw body, keyed
 *    with the UTF-8 bytes of the webhook's secret exactly as the user gave it.
 * 2. Standard Webhooks (https://www.standardwebhooks.com): `webhook-id`, `webhook-timestamp`,
 *    `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. The spec's signature covers
 *    the body only, so a captured delivery could be replayed forever; this one also signs the id and
 *    timestamp, so receivers can reject stale or repeated messages with any Standard Webhooks library.
 *
 * Key mapping for the Standard Webhooks signature (receivers need this):
 * - a secret of the form `whsec_<base64>` (the Standard Webhooks format) is used as that format
 *   means: the key is the base64-decoded part after `whsec_`. Receivers: `new Webhook(secret)`.
 * - any other secret: the key is the UTF-8 bytes of the whole secret. Receivers:
 *   `new Webhook(Buffer.from(secret, 'utf8').toString('base64'))`.
 * `standardWebhookSecretFor(secret)` returns, for any secret, the `whsec_...` string that a
 * Standard Webhooks library accepts.
 */

const SIGNATURE_HEADER = 'x-service-signature';
const WHSEC_PREFIX = 'whsec_';
// Canonical base64 only: Buffer.from(x, 'base64') silently skips junk, which would make two
// different secrets map to the same key.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `sha256=<lowercase hex HMAC-SHA256(secret, rawBody)>`; sign the exact bytes that are sent. */
export function signatureHeader(secret: string, rawBody: string | Buffer): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/** The HMAC key of the Standard Webhooks signature for a user's secret (see the mapping above). */
export function standardWebhookKey(secret: string): Buffer {
  if (secret.startsWith(WHSEC_PREFIX)) {
    const encoded = secret.slice(WHSEC_PREFIX.length);
    if (encoded.length > 0 && BASE64.test(encoded)) return Buffer.from(encoded, 'base64');
  }
  return Buffer.from(secret, 'utf8');
}

/** The `whsec_<base64 key>` string a Standard Webhooks receiver library takes for this secret. */
export function standardWebhookSecretFor(secret: string): string {
  return `${WHSEC_PREFIX}${standardWebhookKey(secret).toString('base64')}`;
}

export interface StandardWebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function standardWebhookHeaders(
  secret: string,
  msgId: string,
  timestampSeconds: number,
  rawBody: string,
): StandardWebhookHeaders {
  const timestamp = String(Math.floor(timestampSeconds));
  const signed = `${msgId}.${timestamp}.${rawBody}`;
  const signature = crypto.createHmac('sha256', standardWebhookKey(secret)).update(signed, 'utf8').digest('base64');
  return { 'webhook-id': msgId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}

export function webhookUserAgent(version: string): string {
  return `AgentMemoryService-Webhooks/${version}`;
}

export interface DeliveryHeaderInput {
  eventId: string;
  eventType: string;
  /** Value of X-Service-Delivery; defaults to the event id (docs/api.md, "Webhooks and events"), stable across retries. */
  deliveryId?: string;
  /** The webhook's secret; null/undefined/'' means unsigned (the spec: no secret, no signature). */
  secret?: string | null;
  /** The exact body that will be sent; both signatures cover these bytes. */
  rawBody: string;
  /** Unix seconds of this attempt (fresh per attempt, so receivers' freshness checks pass). */
  timestampSeconds: number;
  /** Full User-Agent value, e.g. `webhookUserAgent('0.1.0')`. */
  userAgent: string;
}

/**
 * Every header of one delivery attempt, lowercase names. `webhook-id` and `webhook-timestamp` are
 * always sent (they help receivers dedupe even without a secret); the two signatures only when the
 * webhook has a secret.
 */
export function buildDeliveryHeaders(input: DeliveryHeaderInput): Record<string, string> {
  const timestamp = String(Math.floor(input.timestampSeconds));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': input.userAgent,
    'x-service-event': input.eventType,
    'x-service-delivery': input.deliveryId ?? input.eventId,
    'webhook-id': input.eventId,
    'webhook-timestamp': timestamp,
  };
  if (input.secret) {
    headers[SIGNATURE_HEADER] = signatureHeader(input.secret, input.rawBody);
    Object.assign(headers, standardWebhookHeaders(input.secret, input.eventId, input.timestampSeconds, input.rawBody));
  }
  return headers;
}

import { ApiError, toIso } from '@ams/core';
import { DeliveryRow, PageParams, sealWebhookSecret, webhookDeliveriesRepository, WebhookRow, webhooksRepository } from '@ams/db';
import { redactUrlSecrets } from './target-policy';
import { assertWebhookTarget } from './webhook-target';
import type { WebhookCaller, WebhookDeps } from './deps';

/** Validated input (the route schema types its body with it). */
export interface WebhookInput {
  url: string;
  event_types: string[];
  secret?: string;
  description?: string;
  enabled?: boolean;
}

/** The secret is write-only: never in a response. */
function presentWebhook(row: WebhookRow) {
  return {
    id: row.id,
    url: redactUrlSecrets(row.url),
    event_types: row.event_types,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    description: row.description,
    has_secret: row.secret_sealed !== null || row.secret !== null,
    created_at: toIso(row.created_at)!,
    updated_at: toIso(row.updated_at)!,
  };
}

function presentDelivery(row: DeliveryRow) {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    response_excerpt: row.response_excerpt,
    next_attempt_at: row.status === 'pending' ? toIso(row.next_attempt_at) : null,
    last_attempt_at: toIso(row.last_attempt_at),
    created_at: toIso(row.created_at)!,
  };
}

async function requireWebhook(deps: WebhookDeps, auth: WebhookCaller, id: string): Promise<WebhookRow> {
  const row = await webhooksRepository.find(deps.db, auth.accountId, id);
  if (!row) throw ApiError.notFound('Webhook');
  return row;
}

/** Secrets are stored sealed with the configured key (SecretBox), never in plaintext. */
const sealed = (deps: WebhookDeps, auth: WebhookCaller, secret: string | undefined) =>
  secret === undefined ? undefined : sealWebhookSecret(deps.secretBox(), auth.accountId, secret);

export async function createWebhook(deps: WebhookDeps, auth: WebhookCaller, body: WebhookInput) {
  assertWebhookTarget(deps, 'url', body.url);
  const row = await webhooksRepository.insert(deps.db, auth.accountId, {
    url: body.url,
    eventTypes: body.event_types,
    description: body.description ?? null,
    secretSealed: sealed(deps, auth, body.secret) ?? null,
  });
  return presentWebhook(row);
}

export async function listWebhooks(deps: WebhookDeps, auth: WebhookCaller) {
  const rows = await webhooksRepository.listAll(deps.db, auth.accountId);
  return { data: rows.map(presentWebhook), total: rows.length };
}

export const getWebhook = async (deps: WebhookDeps, auth: WebhookCaller, id: string) => presentWebhook(await requireWebhook(deps, auth, id));

/** Re-enabled webhooks get new events only: nothing recorded while disabled is replayed. */
export async function patchWebhook(deps: WebhookDeps, auth: WebhookCaller, id: string, body: Partial<WebhookInput>) {
  if (body.url !== undefined) assertWebhookTarget(deps, 'url', body.url);
  await requireWebhook(deps, auth, id);
  const row = await webhooksRepository.update(deps.db, auth.accountId, id, {
    url: body.url,
    eventTypes: body.event_types,
    description: body.description,
    secretSealed: sealed(deps, auth, body.secret),
    enabled: body.enabled,
    disabledReason: body.enabled === false ? 'disabled by the user' : undefined,
  });
  if (!row) throw ApiError.notFound('Webhook');
  return presentWebhook(row);
}

export async function deleteWebhook(deps: WebhookDeps, auth: WebhookCaller, id: string): Promise<void> {
  if (!(await webhooksRepository.delete(deps.db, auth.accountId, id))) throw ApiError.notFound('Webhook');
}

export async function listDeliveries(deps: WebhookDeps, auth: WebhookCaller, id: string, page: PageParams) {
  await requireWebhook(deps, auth, id);
  const result = await webhookDeliveriesRepository.listForWebhook(deps.db, auth.accountId, id, page);
  return { ...result, data: result.rows.map(presentDelivery) };
}

/** Replays a failed delivery from scratch (same event id, fresh attempts). */
export async function retryDelivery(deps: WebhookDeps, auth: WebhookCaller, webhookId: string, deliveryId: string) {
  await requireWebhook(deps, auth, webhookId);
  const existing = await webhookDeliveriesRepository.find(deps.db, auth.accountId, deliveryId);
  if (!existing || existing.webhook_id !== webhookId) throw ApiError.notFound('Delivery');
  const row = await webhookDeliveriesRepository.replay(deps.db, auth.accountId, deliveryId);
  if (!row) throw ApiError.conflict(`Only a failed delivery can be retried; this one is ${existing.status}`);
  deps.dispatch?.(auth.accountId, [row.id]);
  return presentDelivery(row);
}

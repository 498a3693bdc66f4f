import { ApiError, secretBoxFor, toIso } from '@ams/core';
import { DeliveryRow, PageParams, sealWebhookSecret, webhookDeliveriesRepository, WebhookRow, webhooksRepository } from '@ams/db';
import { redactUrlSecrets } from './target-policy';
import { assertWebhookTarget } from './webhook-target';
import type { AppContext, AuthContext } from './deps';

/** Validated input (the route schema types its body with it). */
export interface WebhookInput {
  url: string;
  event_types: string[];
  secret?: string;
  description?: string;
  enabled?: boolean;
}

/** The secret is write-only: never in a response. */
export function presentWebhook(row: WebhookRow) {
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

export function presentDelivery(row: DeliveryRow) {
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

async function requireWebhook(ctx: AppContext, auth: AuthContext, id: string): Promise<WebhookRow> {
  const row = await webhooksRepository.find(ctx.db.knex, auth.accountId, id);
  if (!row) throw ApiError.notFound('Webhook');
  return row;
}

/** Secrets are stored sealed with the configured key (SecretBox), never in plaintext. */
const sealed = (ctx: AppContext, auth: AuthContext, secret: string | undefined) =>
  secret === undefined ? undefined : sealWebhookSecret(secretBoxFor(ctx.config), auth.accountId, secret);

export async function createWebhook(ctx: AppContext, auth: AuthContext, body: WebhookInput) {
  assertWebhookTarget(ctx, 'url', body.url);
  const row = await webhooksRepository.insert(ctx.db.knex, auth.accountId, {
    url: body.url,
    eventTypes: body.event_types,
    description: body.description ?? null,
    secretSealed: sealed(ctx, auth, body.secret) ?? null,
  });
  return presentWebhook(row);
}

export async function listWebhooks(ctx: AppContext, auth: AuthContext) {
  const rows = await webhooksRepository.listAll(ctx.db.knex, auth.accountId);
  return { data: rows.map(presentWebhook), total: rows.length };
}

export const getWebhook = async (ctx: AppContext, auth: AuthContext, id: string) => presentWebhook(await requireWebhook(ctx, auth, id));

/** Re-enabled webhooks get new events only: nothing recorded while disabled is replayed. */
export async function patchWebhook(ctx: AppContext, auth: AuthContext, id: string, body: Partial<WebhookInput>) {
  if (body.url !== undefined) assertWebhookTarget(ctx, 'url', body.url);
  await requireWebhook(ctx, auth, id);
  const row = await webhooksRepository.update(ctx.db.knex, auth.accountId, id, {
    url: body.url,
    eventTypes: body.event_types,
    description: body.description,
    secretSealed: sealed(ctx, auth, body.secret),
    enabled: body.enabled,
    disabledReason: body.enabled === false ? 'disabled by the user' : undefined,
  });
  if (!row) throw ApiError.notFound('Webhook');
  return presentWebhook(row);
}

export async function deleteWebhook(ctx: AppContext, auth: AuthContext, id: string): Promise<void> {
  if (!(await webhooksRepository.delete(ctx.db.knex, auth.accountId, id))) throw ApiError.notFound('Webhook');
}

export async function listDeliveries(ctx: AppContext, auth: AuthContext, id: string, page: PageParams) {
  await requireWebhook(ctx, auth, id);
  const result = await webhookDeliveriesRepository.listForWebhook(ctx.db.knex, auth.accountId, id, page);
  return { ...result, data: result.rows.map(presentDelivery) };
}

/** Replays a failed delivery from scratch (same event id, fresh attempts). */
export async function retryDelivery(ctx: AppContext, auth: AuthContext, webhookId: string, deliveryId: string) {
  await requireWebhook(ctx, auth, webhookId);
  const existing = await webhookDeliveriesRepository.find(ctx.db.knex, auth.accountId, deliveryId);
  if (!existing || existing.webhook_id !== webhookId) throw ApiError.notFound('Delivery');
  const row = await webhookDeliveriesRepository.replay(ctx.db.knex, auth.accountId, deliveryId);
  if (!row) throw ApiError.conflict(`Only a failed delivery can be retried; this one is ${existing.status}`);
  ctx.webhookDispatch?.(auth.accountId, [row.id]);
  return presentDelivery(row);
}

export {
  SIGNATURE_HEADER,
  buildDeliveryHeaders,
  signatureHeader,
  standardWebhookHeaders,
  standardWebhookKey,
  standardWebhookSecretFor,
  webhookUserAgent,
  type DeliveryHeaderInput,
  type StandardWebhookHeaders,
} from './signing';
export {
  DEFAULT_DELIVERY_TIMEOUT_MS,
  RESPONSE_EXCERPT_MAX_BYTES,
  deliverOnce,
  type DeliveryOptions,
  type DeliveryOutcome,
  type DeliveryRequest,
} from './http-delivery';
export { DEFAULT_RETRY_DELAYS_MS, maxAttempts, nextAttemptDelayMs } from './retry-schedule';
export { addressRefusal, type AddressPolicy } from './address-policy';
export { redactUrlSecrets, webhookTargetRefusal } from './target-policy';
export { ADDRESS_REFUSED, AddressRefusedError, GuardedHttpsAgent, isAddressRefusedError } from './guarded-agent';
export { WebhookDispatcher, type DispatcherSettings, type RetryRequest, type RetryScheduler, type SweepResult } from './dispatcher/dispatcher';
export { attemptResult, deliverDelivery, type AttemptObservation, type DeliveryOutcomeLabel, type DeliverySettings } from './dispatcher/deliver-delivery';
export { OutboxReconciler } from './dispatcher/reconciler';
export { startInProcessDispatcher, type InProcessDispatcher } from './dispatcher/in-process';
export { createWebhookQueue, enqueueDelivery, queuedRetries } from './dispatcher/webhook-queue';
export { dispatcherSettings } from './dispatcher/settings';
export type { TargetPolicy, WebhookCaller, WebhookDeps } from './deps';
export { assertWebhookTarget } from './webhook-target';
export { createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks, patchWebhook, presentDelivery, presentWebhook, retryDelivery, type WebhookInput } from './webhooks.service';

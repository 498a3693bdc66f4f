export {
  
  buildDeliveryHeaders,
  
  
  
  standardWebhookSecretFor,
  webhookUserAgent,
  
  
} from './signing';
export {
  
  
  deliverOnce,
  
  
  
} from './http-delivery';
;
;
;
export {   GuardedHttpsAgent, isAddressRefusedError } from './guarded-agent';
export { WebhookDispatcher,     } from './dispatcher/dispatcher';
export {   type AttemptObservation,   } from './dispatcher/deliver-delivery';
export { OutboxReconciler } from './dispatcher/reconciler';
export { startInProcessDispatcher,  } from './dispatcher/in-process';
export { createWebhookQueue, enqueueDelivery, queuedRetries } from './dispatcher/webhook-queue';
export { dispatcherSettings } from './dispatcher/settings';
export type {   WebhookDeps } from './deps';
export { assertWebhookTarget } from './webhook-target';
export { createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks, patchWebhook,   retryDelivery, type WebhookInput } from './webhooks.service';

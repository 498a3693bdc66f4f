export { serveMetrics } from './serve-metrics';
export { webhookOutboxGauges } from './webhook-outbox-gauges';
export { webhookDeliveryMetrics } from './webhook-delivery-metrics';
export { embeddingBatchMetrics } from './embedding-batch-metrics';
export { apiMetrics, UNMATCHED_ROUTE, type ApiMetrics } from './api-metrics';
export { workerMetrics } from './worker-metrics';
export { dispatcherMetrics } from './dispatcher-metrics';
export { periodicMetrics } from './periodic-metrics';
export { accountActivityGauges } from './account-activity-gauges';

export { serveMetrics } from './serve-metrics';
export { embeddingQueueGauges } from './embedding-queue-gauges';
export { webhookOutboxGauges } from './webhook-outbox-gauges';
export { webhookDeliveryMetrics } from './webhook-delivery-metrics';
export { embeddingBatchMetrics } from './embedding-batch-metrics';
export { apiMetrics, UNMATCHED_ROUTE, type ApiMetrics } from './api-metrics';
export { workerMetrics, type WorkerMetrics } from './worker-metrics';
export { dispatcherMetrics, type DispatcherMetrics } from './dispatcher-metrics';
export { periodicMetrics } from './periodic-metrics';

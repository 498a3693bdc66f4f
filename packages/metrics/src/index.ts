export { serveMetrics } from './serve-metrics';
export { embeddingQueueGauges } from './embedding-queue-gauges';
export { webhookOutboxGauges } from './webhook-outbox-gauges';
export { webhookDeliveryMetrics } from './webhook-delivery-metrics';
export { embeddingBatchMetrics } from './embedding-batch-metrics';

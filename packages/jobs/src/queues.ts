import Joi from 'joi';

/** Every queue the system has, named once. */
export const QUEUES = { embedding: 'embedding', webhooks: 'webhooks' } as const;

/** Jobs carry ids only: the database row is the truth, and the worker re-reads it. */
export interface EmbeddingJob {
  accountId: string;
  memoryId: string;
}

export interface WebhookJob {
  accountId: string;
  deliveryId: string;
}

const id = Joi.string().guid().required();
export const embeddingJobSchema = Joi.object<EmbeddingJob>({ accountId: id, memoryId: id });
export const webhookJobSchema = Joi.object<WebhookJob>({ accountId: id, deliveryId: id });

/**
 * The job id of a delivery's next attempt: the delivery id for the first attempt, then one id per
 * retry. Deterministic, so enqueueing the same attempt twice is a no-op; distinct per attempt,
 * because a retry is scheduled while the job of the attempt that failed still exists (Bee-Queue
 * ignores a job whose id it already holds).
 */
export function webhookJobId(deliveryId: string, attemptsMade: number): string {
  return attemptsMade === 0 ? deliveryId : `${deliveryId}:${attemptsMade}`;
}

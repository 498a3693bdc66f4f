import type { Logger } from '@ams/core';
import { EmbeddingJob, embeddingJobSchema, JobQueue, QUEUES } from '@ams/jobs';

/** The `embedding` queue: the API (producer) and the workers (consumers) build it the same way. */
export function createEmbeddingQueue(opts: { redisUrl: string; prefix: string; logger: Logger; isWorker: boolean }): JobQueue<EmbeddingJob> {
  return new JobQueue<EmbeddingJob>(QUEUES.embedding, { ...opts, schema: embeddingJobSchema });
}

/**
 * Announces a pending memory; the job id is the memory id, so announcing it twice while the first
 * job waits is a no-op. Resolves false (never throws) when Redis cannot take it.
 */
export function enqueueEmbedding(queue: JobQueue<EmbeddingJob>, accountId: string, memoryId: string): Promise<boolean> {
  return queue.enqueue(memoryId, { accountId, memoryId });
}

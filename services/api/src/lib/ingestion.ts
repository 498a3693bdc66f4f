import type { Config, Logger } from '@ams/core';
import type { Database } from '@ams/db';
import type { Embedder } from '@ams/embeddings';
import { EmbeddingWorker, workerSettings } from '@ams/ingestion';
import { EmbeddingJob, JobQueue, QUEUES } from '@ams/jobs';
import type { RedisConnection } from './redis';

export interface Ingestion {
  submit(accountId: string, memoryId: string): Promise<string | null>;
  close(): Promise<void>;
}

/**
 * Split mode: a job per memory on the `embedding` queue (job id = memory id), or null while Redis
 * is away so the request embeds inline. Embedded mode: the worker runs in this process, fed by
 * notifications and its own sweep of the database; its job id is the memory id too.
 */
export function createIngestion(
  config: Config,
  deps: { db: Database; logger: Logger; embedder: Embedder; redis?: RedisConnection; webhookDispatch?: (a: string, ids: string[]) => void },
): Ingestion {
  if (config.redisUrl) {
    const redisUrl = config.redisUrl;
    // Created on first use while Redis is up: a queue made while Redis is away keeps reconnecting forever.
    let queue: JobQueue<EmbeddingJob> | undefined;
    return {
      submit: async (accountId, memoryId) => {
        if (!deps.redis?.isReady()) return null;
        queue ??= new JobQueue<EmbeddingJob>(QUEUES.embedding, { redisUrl, prefix: config.redisKeyPrefix, isWorker: false, logger: deps.logger });
        return (await queue.enqueue(memoryId, { accountId, memoryId })) ? memoryId : null;
      },
      close: async () => queue?.close(),
    };
  }
  const worker = new EmbeddingWorker(
    { db: deps.db.knex, embedder: deps.embedder, logger: deps.logger, maxAttempts: config.embeddingWorker.maxAttempts, onDeliveries: deps.webhookDispatch },
    workerSettings(config),
  );
  worker.start();
  return {
    submit: async (_accountId, memoryId) => {
      worker.notify();
      return memoryId;
    },
    close: () => worker.stop(),
  };
}

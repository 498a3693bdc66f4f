import type { MemoryRow } from '@ams/db';
import type { MemoryDeps } from './deps';

export type Handoff = { jobId: string; estimatedSeconds: number } | { jobId: null; row: MemoryRow };

/**
 * A pending memory goes to the embedding worker (a job, with the estimated wait); when no queue
 * takes it, it is embedded here (deps.embedNow), and the row as it then stands is returned.
 */
export async function handOffEmbedding(deps: Pick<MemoryDeps, 'ingestion' | 'embedNow' | 'logger'>, accountId: string, id: string): Promise<Handoff> {
  const jobId = deps.ingestion ? await deps.ingestion.submit(accountId, id) : null;
  if (jobId === null) return { jobId, row: await deps.embedNow(accountId, id) };
  const estimatedSeconds = await deps.ingestion!.estimateSeconds().catch((err: Error) => {
    deps.logger.warn('could not estimate the embedding wait', { error: err.message });
    return 1;
  });
  return { jobId, estimatedSeconds };
}

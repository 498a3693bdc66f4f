/**
 * A store of `n` corpus documents with their vectors, bulk-loaded (the bank's model vectors, then
 * jittered copies of them), with the HNSW index built after the load as the migration defines it.
 */
import { agentsRepository } from '@ams/db';
import { toPgVector } from '@ams/embeddings';
import type { Corpus } from './corpus';
import type { VectorBank } from './model';
import { BenchServer, memoriesHnswIndex } from './support';

export async function seedStore(server: BenchServer, corpus: Corpus, bank: VectorBank, n: number, model: string, dims = 384): Promise<{ fromModel: number; jittered: number }> {
  const db = server.ctx.db.knex;
  const agent = await agentsRepository.ensureByName(db, server.accountId, 'bench');
  const { name, def } = await memoriesHnswIndex(db, dims);
  await db.raw(`DROP INDEX ${name}`);
  let fromModel = 0;
  for (let i = 0; i < n; i += 500) {
    const rows = [];
    for (let d = i; d < Math.min(n, i + 500); d++) {
      const { vector, source } = bank.vector(d);
      if (source === 'model') fromModel++;
      rows.push({
        account_id: server.accountId,
        agent_id: agent.id,
        content: corpus.docs[d],
        memory_type: 'fact',
        tier: 'warm',
        client_id: `doc-${d}`,
        embedding: toPgVector(vector),
        embedding_model: model,
        embedding_status: 'ready',
      });
    }
    await db('memories').insert(rows);
  }
  await db.raw(def);
  await db.raw('VACUUM ANALYZE memories');
  return { fromModel, jittered: n - fromModel };
}

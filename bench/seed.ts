/**
 * A store of `n` corpus documents with their vectors, bulk-loaded (the bank's model vectors, then
 * jittered copies of them), with the HNSW index built after the load as the migration defines it.
 * `others`: more accounts, each with the first `n` of the same documents.
 */
import { agentsRepository } from '@ams/db';
import { toPgVector } from '@ams/embeddings';
import type { Corpus } from './corpus';
import type { VectorBank } from './model';
import { BenchServer, memoriesHnswIndex } from './support';

export async function seedStore(
  server: BenchServer,
  corpus: Corpus,
  bank: VectorBank,
  n: number,
  model: string,
  dims = 384,
  others: Array<{ accountId: string; n: number }> = [],
): Promise<{ fromModel: number; jittered: number }> {
  const db = server.ctx.db.knex;
  const { name, def } = await memoriesHnswIndex(db, dims);
  await db.raw(`DROP INDEX ${name}`);
  let fromModel = 0;
  for (const account of [{ accountId: server.accountId, n }, ...others]) fromModel += await insertDocs(server, corpus, bank, account, model);
  await db.raw(def);
  await db.raw('VACUUM ANALYZE memories');
  return { fromModel, jittered: n - fromModel };
}

/** The first `n` documents into the account's store; how many had model vectors. */
async function insertDocs(server: BenchServer, corpus: Corpus, bank: VectorBank, { accountId, n }: { accountId: string; n: number }, model: string): Promise<number> {
  const db = server.ctx.db.knex;
  const agent = await agentsRepository.ensureByName(db, accountId, 'bench');
  let fromModel = 0;
  for (let i = 0; i < n; i += 500) {
    const rows = [];
    for (let d = i; d < Math.min(n, i + 500); d++) {
      const { vector, source } = bank.vector(d);
      if (source === 'model' && accountId === server.accountId) fromModel++;
      rows.push({
        account_id: accountId,
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
  return fromModel;
}

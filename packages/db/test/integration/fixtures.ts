import crypto from 'node:crypto';
import { accountsRepository, agentsRepository, createDatabase, Database, memoriesRepository, MemoryRow, NewMemory } from '../../src';

/** The run's PostgreSQL database (made and migrated by the jest global setup). */
export const openRunDatabase = (): Promise<Database> =>
  createDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '', dbPoolMax: 4 });

/** A fresh account with one agent: every test works inside its own tenant. */
export async function tenant(db: Database): Promise<{ accountId: string; agentId: string }> {
  const account = await accountsRepository.insert(db.knex, { email: `db-${crypto.randomUUID()}@example.com`, passwordHash: null });
  const agent = await agentsRepository.ensureByName(db.knex, account!.id, 'agent');
  return { accountId: account!.id, agentId: agent.id };
}

/** A 384-dimension vector literal pointing mostly along axis `i`. */
export const axis = (i: number): string => `[${Array.from({ length: 384 }, (_, j) => (j === i ? 1 : 0.01)).join(',')}]`;

export async function insertMemories(db: Database, t: { accountId: string; agentId: string }, items: Array<Partial<NewMemory>>): Promise<MemoryRow[]> {
  return memoriesRepository.insertMany(
    db.knex,
    items.map((m) => ({
      accountId: t.accountId,
      agentId: t.agentId,
      content: 'a note about kafka',
      metadata: {},
      memoryType: 'fact',
      visibility: 'private',
      importance: 0.5,
      tier: 'warm',
      tierExplicit: false,
      sessionId: null,
      projectId: null,
      embedding: axis(0),
      embeddingModel: 'test-model',
      embeddingStatus: 'ready',
      ...m,
    })),
  );
}

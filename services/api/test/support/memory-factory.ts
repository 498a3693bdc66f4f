import { toPgVector } from '@ams/embeddings';
import type { AppContext } from '../../src/context';

export interface MemoryFixture {
  /** An agent UUID, or a name: the account's agent of that name, created when missing. */
  agentId: string;
  content: string;
  sessionId?: string | null;
  projectId?: string | null;
  importance?: number;
  createdAt?: Date;
  memoryType?: string;
  visibility?: 'private' | 'confidential';
  archived?: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The account's live agent of that name, made directly (tests need agents, not the agents API). */
export async function ensureAgent(ctx: AppContext, accountId: string, name: string): Promise<string> {
  const knex = ctx.db.knex;
  await knex.raw(`INSERT INTO agents (account_id, name) VALUES (?, ?) ON CONFLICT (account_id, name) WHERE deleted_at IS NULL DO NOTHING`, [
    accountId,
    name,
  ]);
  const row = await knex('agents').where({ account_id: accountId, name }).whereNull('deleted_at').first('id');
  return (row as { id: string }).id;
}

/**
 * A ready memory row written straight to the database, embedded with ctx.embedder: lets tests
 * place memories in sessions and projects at chosen times and importances, independent of the
 * memories API.
 */
export async function insertMemory(ctx: AppContext, accountId: string, m: MemoryFixture): Promise<{ id: string; agentId: string }> {
  const agentId = UUID.test(m.agentId) ? m.agentId : await ensureAgent(ctx, accountId, m.agentId);
  const [vector] = await ctx.embedder.embed([m.content]);
  const importance = m.importance ?? 0.5;
  const at = m.createdAt ?? new Date();
  const [row] = await ctx.db.knex('memories')
    .insert({
      account_id: accountId,
      agent_id: agentId,
      content: m.content,
      memory_type: m.memoryType ?? 'fact',
      visibility: m.visibility ?? 'private',
      importance,
      tier: importance >= 0.8 ? 'hot' : importance >= 0.3 ? 'warm' : 'cold',
      archived: m.archived ?? false,
      session_id: m.sessionId ?? null,
      project_id: m.projectId ?? null,
      embedding: toPgVector(vector!),
      embedding_model: ctx.embedder.model,
      created_at: at,
      updated_at: at,
    })
    .returning('id');
  return { id: (row as { id: string }).id, agentId };
}

/** Soft-deletes a memory row directly. */
export async function deleteMemoryRow(ctx: AppContext, accountId: string, id: string): Promise<void> {
  await ctx.db.knex('memories').where({ account_id: accountId, id }).update({ deleted_at: new Date() });
}

import { isUuid } from '@ams/core';
import type { AppContext } from '@ams/api';
import { agentsRepository, memoriesRepository, type NewMemory } from '@ams/db';
import { toPgVector } from '@ams/embeddings';
import { MEMORY_DEFAULTS, tierForImportance } from '@ams/memories';

export interface MemoryFixture {
  /** An agent UUID, or a name: the account's agent of that name, created when missing. */
  agentId: string;
  content: string;
  sessionId?: string | null;
  projectId?: string | null;
  importance?: number;
  createdAt?: Date;
  memoryType?: 'fact' | 'event' | 'insight' | 'task' | 'preference' | 'entity_reference' | 'system';
  visibility?: 'private' | 'confidential';
  archived?: boolean;
}

/** The account's live agent of that name, made through the repository (tests need agents, not the agents API). */
export async function ensureAgent(ctx: AppContext, accountId: string, name: string): Promise<string> {
  return (await agentsRepository.ensureByName(ctx.db.knex, accountId, name)).id;
}

/**
 * A ready memory stored through the repository, embedded with ctx.embedder: lets tests place
 * memories in sessions and projects at chosen times and importances, independent of the memories API.
 */
export async function insertMemory(ctx: AppContext, accountId: string, m: MemoryFixture): Promise<{ id: string; agentId: string }> {
  const agentId = isUuid(m.agentId) ? m.agentId : await ensureAgent(ctx, accountId, m.agentId);
  const [vector] = await ctx.embedder.embed([m.content]);
  const [row] = await memoriesRepository.insertMany(ctx.db.knex, [readyMemory(ctx, accountId, { ...m, agentId }, vector!)]);
  if (m.archived) await memoriesRepository.update(ctx.db.knex, accountId, row!.id, { archived: true });
  return { id: row!.id, agentId };
}

/** Many ready memories of one agent at once: one model call and one INSERT per 500 (a store of thousands in seconds). */
export async function insertMemories(ctx: AppContext, accountId: string, agent: string, contents: string[]): Promise<string[]> {
  const agentId = isUuid(agent) ? agent : await ensureAgent(ctx, accountId, agent);
  const ids: string[] = [];
  for (let i = 0; i < contents.length; i += 500) {
    const chunk = contents.slice(i, i + 500);
    const vectors = await ctx.embedder.embed(chunk);
    const rows = await memoriesRepository.insertMany(
      ctx.db.knex,
      chunk.map((content, j) => readyMemory(ctx, accountId, { agentId, content }, vectors[j]!)),
    );
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

function readyMemory(ctx: AppContext, accountId: string, m: MemoryFixture, vector: Float32Array): NewMemory {
  const importance = m.importance ?? MEMORY_DEFAULTS.importance;
  return {
    accountId,
    agentId: m.agentId,
    content: m.content,
    metadata: {},
    memoryType: m.memoryType ?? 'fact',
    visibility: m.visibility ?? MEMORY_DEFAULTS.visibility,
    importance,
    tier: tierForImportance(importance),
    tierExplicit: false,
    sessionId: m.sessionId ?? null,
    projectId: m.projectId ?? null,
    embedding: toPgVector(vector),
    embeddingModel: ctx.embedder.model,
    embeddingStatus: 'ready',
    createdAt: m.createdAt ?? new Date(),
  };
}

/** Soft-deletes a memory through the repository. */
export async function deleteMemoryRow(ctx: AppContext, accountId: string, id: string): Promise<void> {
  await memoriesRepository.softDelete(ctx.db.knex, accountId, id);
}

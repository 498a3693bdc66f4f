import { alongside, ApiError } from '@ams/core';
import { Db, NewMemory } from '@ams/db';
import { classifyMemoryType } from '@ams/text';
import { resolveAgentForWrite } from './agent-ref';
import type { Caller } from './deps';
import type { CreateMemoryInput } from './inputs';
import { resolveMemoryScope } from './memory-scope';
import { tierForImportance } from './tiering';

/** A new memory before its embedding: what every create (v1, v2, batch item) stores. */
export type PreparedMemory = Omit<NewMemory, 'embedding' | 'embeddingModel' | 'embeddingStatus' | 'dedupThreshold' | 'webhookUrl'>;

/** The fields a create may leave out, and what they default to (the schemas apply the same defaults). */
type Describable = Pick<CreateMemoryInput, 'content' | 'metadata' | 'memory_type' | 'visibility' | 'importance' | 'tier' | 'expires_at' | 'valid_from' | 'valid_until'>;

/** Type (classified when not given) and tier (from importance unless given) of a new memory: the one rule for every create. */
export function buildNewMemory(
  owner: { accountId: string; agentId: string },
  input: Describable,
  placement: { sessionId: string | null; projectId: string | null; clientId?: string | null },
): PreparedMemory {
  return {
    accountId: owner.accountId,
    agentId: owner.agentId,
    content: input.content,
    metadata: input.metadata,
    memoryType: input.memory_type ?? classifyMemoryType(input.content),
    visibility: input.visibility,
    importance: input.importance,
    tier: input.tier ?? tierForImportance(input.importance),
    tierExplicit: input.tier !== undefined,
    // Absent: the agent's default TTL for the type applies (agentDefaultExpiry, in the insert).
    ...(input.expires_at !== undefined ? { expiresAt: input.expires_at } : {}),
    validFrom: input.valid_from ?? null,
    validUntil: input.valid_until ?? null,
    ...placement,
  };
}

async function requireAgent(db: Db, caller: Caller, input: string | undefined): Promise<string> {
  // From the process's cache: the INSERT checks the agent is live (agentMustBeLive); the create runs under withLiveAgents.
  const agentId = await resolveAgentForWrite(db, caller, input, { cached: true });
  if (!agentId) throw ApiError.invalidField('agent_id', 'agent_id is required (or use a key bound to an agent)');
  return agentId;
}

/**
 * Agent, session/project, type and tier of a new memory: the same for v1 and v2 creates. Its agent
 * may come from the process's cache: call it, and the INSERT, under withLiveAgents.
 */
export async function prepareNewMemory(db: Db, caller: Caller, input: CreateMemoryInput): Promise<PreparedMemory> {
  // References first: a 404 on session or project must not leave a newly created agent behind.
  const references = resolveMemoryScope(db, caller.accountId, input).then(async (scope) => ({ scope, agentId: await requireAgent(db, caller, input.agent_id) }));
  // The classifier (CPU, ~1 ms on a paragraph) runs while the lookups' queries are out.
  const [{ scope, agentId }, memoryType] = await alongside(references, () => input.memory_type ?? classifyMemoryType(input.content));
  return { ...buildNewMemory({ accountId: caller.accountId, agentId }, { ...input, memory_type: memoryType }, scope), agentMustBeLive: input.agent_id !== undefined };
}

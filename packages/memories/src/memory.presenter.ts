import { toUnixSeconds } from '@ams/core';
import type { MemoryRow } from '@ams/db';

export interface EntityRef {
  type: string;
  value: string;
  confidence: number;
}

/** The full memory object (get, create, patch). Memory timestamps are Unix seconds. */
export function presentMemory(row: MemoryRow, entities: EntityRef[], extra: { is_duplicate?: boolean } = {}) {
  return {
    object: 'memory' as const,
    id: row.id,
    content: row.content,
    agent_id: row.agent_id,
    metadata: row.metadata,
    entities,
    memory_type: row.memory_type,
    visibility: row.visibility,
    importance: round(row.importance),
    tier: row.tier,
    archived: row.archived,
    ...(extra.is_duplicate !== undefined ? { is_duplicate: extra.is_duplicate } : {}),
    session_id: row.session_id,
    project_id: row.project_id,
    created_at: toUnixSeconds(row.created_at)!,
    updated_at: toUnixSeconds(row.updated_at)!,
    // Beyond the spec (issue 34): the memory's version (GET /v1/memories/{id}/history) and when it expires.
    version: row.version,
    expires_at: toUnixSeconds(row.expires_at),
  };
}

/** List items and search results omit visibility, session_id, project_id and is_duplicate. */
export function presentMemorySummary(row: MemoryRow, entities: EntityRef[]) {
  const { visibility: _v, session_id: _s, project_id: _p, ...rest } = presentMemory(row, entities);
  return rest;
}

// real columns come back as float4: 0.7 reads as 0.699999988.
const round = (n: number) => Math.round(Number(n) * 1e6) / 1e6;

/**
 * Flat copies of a search result's memory beside `memory` and `score`, for clients that read them
 * there (docs/clients.md, "Additive response members"). The spec's members are unchanged.
 */
export function flatSearchCopies(memory: ReturnType<typeof presentMemorySummary>, score: number) {
  const category = memory.metadata?.category;
  return {
    id: memory.id,
    content: memory.content,
    agent_id: memory.agent_id,
    metadata: memory.metadata,
    created_at: memory.created_at,
    updated_at: memory.updated_at,
    similarity: score,
    ...(typeof category === 'string' ? { category } : {}),
  };
}

import { toUnixSeconds } from '@ams/core';
import type { MemoryRow } from '@ams/db';

export interface EntityRef {
  type: string;
  value: string;
  confidence: number;
}

/** The members every memory object starts with, full or summary. */
const leading = (row: MemoryRow, entities: EntityRef[]) => ({
  object: 'memory' as const,
  id: row.id,
  content: row.content,
  agent_id: row.agent_id,
  metadata: row.metadata,
  entities,
  memory_type: row.memory_type,
});

/** The full memory object (get, create, patch). Memory timestamps are Unix seconds. */
export function presentMemory(row: MemoryRow, entities: EntityRef[], extra: { is_duplicate?: boolean } = {}) {
  return {
    ...leading(row, entities),
    visibility: row.visibility,
    importance: round(row.importance),
    tier: row.tier,
    archived: row.archived,
    ...(extra.is_duplicate !== undefined ? { is_duplicate: extra.is_duplicate } : {}),
    session_id: row.session_id,
    project_id: row.project_id,
    created_at: toUnixSeconds(row.created_at)!,
    updated_at: toUnixSeconds(row.updated_at)!,
    // Beyond the spec: the memory's version (GET /v1/memories/{id}/history) and when it expires.
    version: row.version,
    expires_at: toUnixSeconds(row.expires_at),
    ...timeAware(row),
  };
}

/** Beyond the spec (docs/api.md, "Time-aware recall" and "Re-tiering"): on every full memory. */
function timeAware(row: MemoryRow) {
  return {
    valid_from: toUnixSeconds(row.valid_from),
    valid_until: toUnixSeconds(row.valid_until),
    supersedes: row.supersedes,
    superseded_by: row.superseded_by,
    tier_pinned: row.tier_explicit,
  };
}

/**
 * List items and search results omit visibility, session_id, project_id and is_duplicate. They carry
 * the version; the members beyond the spec that presentMemory always shows (expires_at and
 * timeAware's) appear here only when set (tier_pinned: when true). Built as it is sent, with no
 * member deleted after (an object that loses members is slower to serialise).
 */
export function presentMemorySummary(row: MemoryRow, entities: EntityRef[]) {
  const expiresAt = toUnixSeconds(row.expires_at);
  const validFrom = toUnixSeconds(row.valid_from);
  const validUntil = toUnixSeconds(row.valid_until);
  return {
    ...leading(row, entities),
    importance: round(row.importance),
    tier: row.tier,
    archived: row.archived,
    created_at: toUnixSeconds(row.created_at)!,
    updated_at: toUnixSeconds(row.updated_at)!,
    version: row.version,
    ...(expiresAt !== null ? { expires_at: expiresAt } : {}),
    ...(validFrom !== null ? { valid_from: validFrom } : {}),
    ...(validUntil !== null ? { valid_until: validUntil } : {}),
    ...(row.supersedes !== null ? { supersedes: row.supersedes } : {}),
    ...(row.superseded_by !== null ? { superseded_by: row.superseded_by } : {}),
    ...(row.tier_explicit ? { tier_pinned: true } : {}),
  };
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

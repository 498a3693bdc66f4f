import { ApiError } from '@ams/core';
import { memoriesRepository, MemoryPatch, memoryVersionsRepository } from '@ams/db';
import type { MemoryType, Tier, Visibility } from '@ams/vocabulary';
import type { Caller, MemoryDeps } from './deps';
import { presentMemoryVersion } from './history.presenter';
import { applyMemoryPatch } from './memories.service';
import { requireVisibleMemory } from './memory-scope';

export interface HistoryQuery {
  limit: number;
  offset: number;
  /** A previous page's next_cursor, decoded (decodeVersionCursor). */
  cursor?: number;
}

/** A history page's cursor: the last version it showed (opaque to clients). */
const encodeVersionCursor = (version: number) => Buffer.from(JSON.stringify({ v: version })).toString('base64url');

export function decodeVersionCursor(raw: string): number | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    const v = (parsed as { v?: unknown } | null)?.v;
    return Number.isInteger(v) && (v as number) > 0 ? (v as number) : undefined;
  } catch {
    return undefined;
  }
}

/** The memory, deleted or not (a deleted memory's history stays readable), if the caller may see it; else 404. */
async function requireMemoryOfAnyState(deps: Pick<MemoryDeps, 'db'>, caller: Caller, id: string) {
  return requireVisibleMemory(caller, await memoriesRepository.findAny(deps.db, caller.accountId, id));
}

/** A memory's versions, newest first. */
export async function listMemoryHistory(deps: Pick<MemoryDeps, 'db'>, caller: Caller, id: string, query: HistoryQuery) {
  await requireMemoryOfAnyState(deps, caller, id);
  const page = await memoryVersionsRepository.list(deps.db, caller.accountId, id, { limit: query.limit, offset: query.offset, beforeVersion: query.cursor });
  const last = page.rows[page.rows.length - 1];
  return {
    hasMore: page.hasMore,
    nextCursor: page.hasMore && last ? encodeVersionCursor(last.version) : null,
    totalCount: page.totalCount,
    data: page.rows.map(presentMemoryVersion),
  };
}

/** What a version restore writes (memory.updated's `changes`). */
const RESTORED_FIELDS = ['content', 'metadata', 'memory_type', 'visibility', 'importance', 'tier', 'archived', 'session_id', 'project_id'];

/**
 * Brings a memory back to what it was at `version`: its content, metadata (replaced, not merged),
 * type, visibility, importance, tier, archived flag, session and project, as a NEW version (the
 * history is never rewritten). A deleted memory comes back too; an expiry that has passed is
 * cleared (else the memory would stay out of every read), a future one is kept.
 */
export async function restoreMemoryVersion(deps: MemoryDeps, caller: Caller, id: string, version: number) {
  const current = await requireMemoryOfAnyState(deps, caller, id);
  const target = await memoryVersionsRepository.find(deps.db, caller.accountId, id, version);
  if (!target) throw ApiError.notFound('Memory version');
  const s = target.state;
  const patch: MemoryPatch = {
    content: s.content as string,
    metadata: s.metadata as Record<string, unknown>,
    replaceMetadata: true,
    memoryType: s.memory_type as MemoryType,
    visibility: s.visibility as Visibility,
    importance: Number(s.importance),
    tier: s.tier as Tier,
    tierExplicit: Boolean(s.tier_explicit),
    archived: Boolean(s.archived),
    sessionId: (s.session_id as string | null) ?? null,
    projectId: (s.project_id as string | null) ?? null,
    revive: true,
    ...(current.expires_at && current.expires_at.getTime() <= Date.now() ? { expiresAt: null } : {}),
  };
  return applyMemoryPatch(deps, caller, current, patch, { changes: RESTORED_FIELDS, change: 'restore_version', extra: { restored_version: version } });
}

import { ApiError } from '@ams/core';
import { Db, MemoryRow, projectsRepository, sessionsRepository } from '@ams/db';
import type { Caller } from './deps';

/** The memory, if the caller may see it: a key bound to an agent sees only that agent's memories. Else 404. */
export function requireVisibleMemory(auth: Caller, row: MemoryRow | undefined): MemoryRow {
  if (!row || (auth.agentId && row.agent_id !== auth.agentId)) throw ApiError.notFound('Memory');
  return row;
}

/** A memory's session and project_id must be live resources of the account (else 404); a project slug is created when new. */
export async function resolveMemoryScope(
  db: Db,
  accountId: string,
  input: { session_id?: string; project?: string; project_id?: string },
): Promise<{ sessionId: string | null; projectId: string | null }> {
  let sessionId: string | null = null;
  if (input.session_id) {
    if (!(await sessionsRepository.findLive(db, accountId, input.session_id))) throw ApiError.notFound('Session');
    sessionId = input.session_id;
  }
  let projectId: string | null = null;
  // project_id takes precedence over the slug.
  if (input.project_id) {
    if (!(await projectsRepository.findLive(db, accountId, input.project_id))) throw ApiError.notFound('Project');
    projectId = input.project_id;
  } else if (input.project) {
    // An unregistered slug creates the project (docs/clients.md, "Names instead of ids").
    projectId = (await projectsRepository.ensureBySlug(db, accountId, input.project)).id;
  }
  return { sessionId, projectId };
}

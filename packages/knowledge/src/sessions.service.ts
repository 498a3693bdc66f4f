import { ApiError, toIso, toUnixSeconds } from '@ams/core';
import { isUniqueViolation, PageParams, SessionRow, sessionsRepository } from '@ams/db';
import { centroid, cosineSimilarity } from '@ams/embeddings';
import { PROJECT_SLUG, resolveAgentForRead, resolveAgentForWrite } from '@ams/memories';
import { extractiveSummary } from '@ams/text';
import type { Caller, EmbeddingDeps, StoreDeps } from './deps';
import { projectForWrite } from './projects.service';

/** Validated input (the route schema types its body with it). */
export interface CreateSessionInput {
  agent_id?: string;
  external_id?: string;
  project?: string;
  title?: string;
  metadata: Record<string, unknown>;
}

export interface EndSessionInput {
  summary?: string;
  metadata?: Record<string, unknown>;
}

const EXTERNAL_ID_TAKEN = 'sessions_account_external_id_key';

function presentSession(row: SessionRow, memoryCount: number) {
  return {
    id: row.id,
    agent_id: row.agent_id,
    external_id: row.external_id,
    project: row.project,
    status: row.status,
    title: row.title,
    summary: row.summary,
    metadata: row.metadata,
    memory_count: memoryCount,
    started_at: toIso(row.started_at)!,
    ended_at: toIso(row.ended_at),
    created_at: toIso(row.created_at)!,
    updated_at: toIso(row.updated_at)!,
  };
}

async function present(deps: StoreDeps, row: SessionRow) {
  const counts = await sessionsRepository.memoryCounts(deps.db, row.account_id, [row.id]);
  return presentSession(row, counts.get(row.id) ?? 0);
}

/**
 * A session naming a project slug the account has not registered creates it, as every write naming
 * a project does; a `project` that is no slug (clients send free text) is kept as the session's label.
 */
async function newSession(deps: StoreDeps, auth: Caller, body: CreateSessionInput) {
  if (body.project && PROJECT_SLUG.test(body.project)) await projectForWrite(deps, auth.accountId, body.project);
  return {
    accountId: auth.accountId,
    agentId: await resolveAgentForWrite(deps.db, auth, body.agent_id),
    externalId: body.external_id ?? null,
    project: body.project ?? null,
    title: body.title ?? null,
    metadata: body.metadata,
  };
}

export async function createSession(deps: StoreDeps, auth: Caller, body: CreateSessionInput) {
  try {
    return presentSession(await sessionsRepository.insert(deps.db, await newSession(deps, auth, body)), 0);
  } catch (err) {
    if (isUniqueViolation(err, EXTERNAL_ID_TAKEN)) throw ApiError.conflict(`A session with external_id "${body.external_id}" already exists`);
    throw err;
  }
}

/** title and metadata apply only when the session is created. */
export async function getOrCreateSession(deps: StoreDeps, auth: Caller, body: CreateSessionInput & { external_id: string }) {
  const { row, created } = await sessionsRepository.getOrCreate(deps.db, { ...(await newSession(deps, auth, body)), externalId: body.external_id });
  const contributors = await sessionsRepository.contributors(deps.db, auth.accountId, row.id);
  return { ...(await present(deps, row)), created, contributors };
}

export async function listSessions(deps: StoreDeps, auth: Caller, q: { agent_id?: string; project?: string; status?: string } & PageParams) {
  const agent = await resolveAgentForRead(deps.db, auth, q.agent_id);
  if (agent === 'none') return { hasMore: false, nextCursor: null, totalCount: 0, data: [] };
  const page = await sessionsRepository.list(deps.db, auth.accountId, { agentId: agent, project: q.project, status: q.status }, q);
  const counts = await sessionsRepository.memoryCounts(deps.db, auth.accountId, page.rows.map((r) => r.id));
  return { ...page, data: page.rows.map((r) => presentSession(r, counts.get(r.id) ?? 0)) };
}

async function requireSession(deps: StoreDeps, auth: Caller, id: string): Promise<SessionRow> {
  const row = await sessionsRepository.findLive(deps.db, auth.accountId, id);
  if (!row) throw ApiError.notFound('Session');
  return row;
}

export async function getSession(deps: StoreDeps, auth: Caller, id: string, includeMemories: boolean) {
  const session = await present(deps, await requireSession(deps, auth, id));
  if (!includeMemories) return session;
  const memories = await sessionsRepository.memoriesOf(deps.db, auth.accountId, id, false);
  return { ...session, memories: memories.map((m) => ({ id: m.id, content: m.content, created_at: toUnixSeconds(m.created_at)! })) };
}

/** active → ended; ending an ended session is a conflict (docs/api.md, "Sessions, decisions and patterns"). */
export async function endSession(deps: StoreDeps, auth: Caller, id: string, body: EndSessionInput) {
  const current = await requireSession(deps, auth, id);
  if (current.status === 'ended') throw ApiError.conflict('Session has already ended');
  const row = await sessionsRepository.end(deps.db, auth.accountId, id, body);
  if (!row) throw ApiError.conflict('Session has already ended');
  return present(deps, row);
}

/**
 * The PUT form some clients send after every turn (docs/clients.md, "Method and path variants"): ending an ended session
 * answers it again, with a given summary and metadata applied, instead of the POST form's 409.
 */
export async function endSessionIdempotent(deps: StoreDeps, auth: Caller, id: string, body: EndSessionInput) {
  const current = await requireSession(deps, auth, id);
  if (current.status === 'active') {
    const ended = await sessionsRepository.end(deps.db, auth.accountId, id, body);
    if (ended) return present(deps, ended);
  }
  const noChange = body.summary === undefined && body.metadata === undefined;
  const row = noChange
    ? await sessionsRepository.findLive(deps.db, auth.accountId, id)
    : await sessionsRepository.amendEnded(deps.db, auth.accountId, id, body);
  if (!row) throw ApiError.notFound('Session');
  return present(deps, row);
}

const parseVector = (text: string): number[] => JSON.parse(text) as number[];

/**
 * Extractive: each memory is scored by its similarity to the session's centroid embedding, and the
 * most representative sentences are kept in time order. No memories: an empty summary.
 */
export async function summarizeSession(deps: EmbeddingDeps, auth: Caller, id: string) {
  await requireSession(deps, auth, id);
  const memories = await sessionsRepository.memoriesOf(deps.db, auth.accountId, id, true);
  // Only vectors of the current model share a space (a v2 memory may still be waiting for one).
  const vectors = memories.map((m) => (m.embedding && m.embedding_model === deps.embedder.model ? parseVector(m.embedding) : undefined));
  const embedded = vectors.filter((v): v is number[] => v !== undefined);
  const center = embedded.length ? centroid(embedded) : undefined;
  const summary = extractiveSummary(
    memories.map((m, i) => ({
      content: m.content,
      createdAt: new Date(m.created_at),
      score: center && vectors[i] ? cosineSimilarity(center, vectors[i]!) : 0,
    })),
  );
  const row = await sessionsRepository.saveSummary(deps.db, auth.accountId, id, summary);
  if (!row) throw ApiError.notFound('Session');
  return { session_id: id, summary, memory_count: memories.length, generated_at: toIso(row.summary_generated_at)! };
}

export async function deleteSession(deps: StoreDeps, auth: Caller, id: string, cascadeMemories: boolean) {
  await requireSession(deps, auth, id);
  const row = await deps.db.transaction((trx) => sessionsRepository.softDelete(trx, auth.accountId, id, cascadeMemories));
  if (!row) throw ApiError.notFound('Session');
  return { id, deleted: true, deleted_at: toIso(row.deleted_at)!, cascade_memories: cascadeMemories };
}

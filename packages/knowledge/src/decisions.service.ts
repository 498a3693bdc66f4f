import { ApiError, toIso } from '@ams/core';
import { DecisionRow, decisionsRepository, DecisionStatus, PageParams, sessionsRepository } from '@ams/db';
import { embedText } from '@ams/embeddings';
import { embeddedText } from '@ams/vocabulary';
import { resolveAgentForWrite } from '@ams/memories';
import type { Caller, EmbeddingDeps, StoreDeps } from './deps';
import { projectForWrite } from './projects.service';
import { similarityScore } from './similarity-score';

/** Validated input (the route schema types its body with it). */
export interface CreateDecisionInput {
  title: string;
  rationale: string;
  alternatives?: string;
  status: 'active' | 'experimental';
  agent_id?: string;
  session_id?: string;
  project_slug?: string;
  tags: string[];
  metadata: Record<string, unknown>;
}

export interface PatchDecisionInput {
  title?: string;
  rationale?: string;
  alternatives?: string;
  status?: DecisionStatus;
  tags?: string[];
  metadata?: Record<string, unknown>;
}

export interface SupersedeInput {
  title: string;
  rationale: string;
  alternatives?: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
  agent_id?: string;
  session_id?: string;
  project_slug?: string;
}

export function presentDecision(row: DecisionRow) {
  return {
    id: row.id,
    agent_id: row.agent_id,
    session_id: row.session_id,
    project_slug: row.project_slug,
    title: row.title,
    rationale: row.rationale,
    alternatives: row.alternatives,
    status: row.status,
    superseded_by: row.superseded_by,
    tags: row.tags,
    metadata: row.metadata,
    created_at: toIso(row.created_at)!,
    updated_at: toIso(row.updated_at)!,
  };
}

/** What a decision's vector embeds (the re-embed repository builds the same text from the same fields). */
export const decisionText = (d: { title: string; rationale: string }) => embeddedText('decisions', d);

async function requireSession(deps: StoreDeps, accountId: string, id: string | undefined): Promise<string | null> {
  if (!id) return null;
  if (!(await sessionsRepository.findLive(deps.db, accountId, id))) throw ApiError.notFound('Session');
  return id;
}

export async function createDecision(deps: EmbeddingDeps, auth: Caller, body: CreateDecisionInput) {
  // An unregistered project slug creates the project, so its context shows the decision (docs/clients.md, "Names instead of ids").
  if (body.project_slug) await projectForWrite(deps, auth.accountId, body.project_slug);
  const row = await decisionsRepository.insert(deps.db, {
    accountId: auth.accountId,
    agentId: await resolveAgentForWrite(deps.db, auth, body.agent_id),
    sessionId: await requireSession(deps, auth.accountId, body.session_id),
    projectSlug: body.project_slug ?? null,
    title: body.title,
    rationale: body.rationale,
    alternatives: body.alternatives ?? null,
    status: body.status,
    tags: body.tags,
    metadata: body.metadata,
    embedding: await embedText(deps.embedder, decisionText(body)),
    embeddingModel: deps.embedder.model,
  });
  return presentDecision(row);
}

export async function listDecisions(
  deps: StoreDeps,
  auth: Caller,
  q: { project_slug?: string; status?: string; tag?: string; tags?: string[] } & PageParams,
) {
  const page = await decisionsRepository.list(deps.db, auth.accountId, { projectSlug: q.project_slug, status: q.status, tag: q.tag, tags: q.tags }, q);
  return { ...page, data: page.rows.map(presentDecision) };
}

async function requireDecision(deps: StoreDeps, auth: Caller, id: string): Promise<DecisionRow> {
  const row = await decisionsRepository.findLive(deps.db, auth.accountId, id);
  if (!row) throw ApiError.notFound('Decision');
  return row;
}

export const getDecision = async (deps: StoreDeps, auth: Caller, id: string) => presentDecision(await requireDecision(deps, auth, id));

/**
 * Status moves among active, experimental and reverted. `superseded` is reached only through
 * supersede and is final (docs/api.md, "Sessions, decisions and patterns"): moving into or out of it here is a conflict.
 */
function checkStatusMove(from: DecisionStatus, to: DecisionStatus): void {
  if (from === to) return;
  if (from === 'superseded') throw ApiError.conflict('A superseded decision cannot change status');
  if (to === 'superseded') throw ApiError.conflict('Use POST /v1/decisions/{id}/supersede to supersede a decision');
}

export async function patchDecision(deps: EmbeddingDeps, auth: Caller, id: string, body: PatchDecisionInput) {
  const current = await requireDecision(deps, auth, id);
  if (body.status) checkStatusMove(current.status, body.status);
  const textChanged = (body.title !== undefined && body.title !== current.title) || (body.rationale !== undefined && body.rationale !== current.rationale);
  const row = await decisionsRepository.update(deps.db, auth.accountId, id, {
    ...body,
    ...(textChanged
      ? { embedding: await embedText(deps.embedder, decisionText({ title: body.title ?? current.title, rationale: body.rationale ?? current.rationale })), embeddingModel: deps.embedder.model }
      : {}),
  });
  if (!row) throw ApiError.notFound('Decision');
  return presentDecision(row);
}

export async function deleteDecision(deps: StoreDeps, auth: Caller, id: string): Promise<void> {
  if (!(await decisionsRepository.softDelete(deps.db, auth.accountId, id))) throw ApiError.notFound('Decision');
}

/** `threshold` is a minimum score; `include_superseded: false` leaves superseded decisions out (the GET form's default). */
export async function checkDecisions(
  deps: EmbeddingDeps,
  auth: Caller,
  body: { query: string; project_slug?: string; limit: number; threshold?: number; include_superseded?: boolean },
) {
  const vector = await embedText(deps.embedder, body.query);
  const excludeSuperseded = body.include_superseded === false;
  const rows = await decisionsRepository.similar(deps.db, auth.accountId, vector, deps.embedder.model, body.limit, body.project_slug, excludeSuperseded);
  const data = rows
    .map(({ score, ...row }) => ({ decision: presentDecision(row), score: similarityScore(score) }))
    .filter((d) => body.threshold === undefined || d.score >= body.threshold);
  return { data, query: body.query, total: data.length };
}

/**
 * One transaction with the old row locked: the new decision is created active (inheriting
 * project, agent and session unless given) and the old one points at it. Superseding twice is 409.
 */
export async function supersedeDecision(deps: EmbeddingDeps, auth: Caller, id: string, body: SupersedeInput) {
  const embedding = await embedText(deps.embedder, decisionText(body));
  const agentId = body.agent_id === undefined ? undefined : await resolveAgentForWrite(deps.db, auth, body.agent_id);
  const sessionId = body.session_id === undefined ? undefined : await requireSession(deps, auth.accountId, body.session_id);
  const row = await deps.db.transaction(async (trx) => {
    const old = await decisionsRepository.findLive(trx, auth.accountId, id, true);
    if (!old) throw ApiError.notFound('Decision');
    if (old.status === 'superseded') throw ApiError.conflict('Decision has already been superseded');
    const created = await decisionsRepository.insert(trx, {
      accountId: auth.accountId,
      agentId: agentId ?? old.agent_id,
      sessionId: sessionId ?? old.session_id,
      projectSlug: body.project_slug ?? old.project_slug,
      title: body.title,
      rationale: body.rationale,
      alternatives: body.alternatives ?? null,
      status: 'active',
      tags: body.tags ?? [],
      metadata: body.metadata ?? {},
      embedding,
      embeddingModel: deps.embedder.model,
    });
    await decisionsRepository.update(trx, auth.accountId, id, { status: 'superseded', supersededBy: created.id });
    return created;
  });
  return presentDecision(row);
}

import { ApiError, toIso } from '@ams/core';
import { decisionsRepository, entitiesRepository, memoriesRepository, ProjectEdge, projectRelationshipsRepository, ProjectRow, patternsRepository } from '@ams/db';
import { embedText, type VectorParam } from '@ams/embeddings';
import { presentMemorySummary } from '@ams/memories';
import type { Caller, EmbeddingDeps, StoreDeps } from './deps';
import { presentDecision } from './decisions.service';
import { presentPattern } from './patterns.service';
import { projectForWrite, requireProjectBySlug } from './projects.service';
import { similarityScore } from './similarity-score';

/** Validated input (the route schema types its body with it). */
export interface RelationshipBody {
  target_project: string;
  relationship_type: string;
  metadata: Record<string, unknown>;
}

export interface ImpactAnalysisBody {
  project: string;
  change_description: string;
}

/** Edge types that make the target a dependency of the source (docs/clients.md, "Additional endpoints"). */
const DEPENDENCY_TYPES = ['depends_on', 'api_consumer'];
const IMPACT_HITS = 5;

function presentEdge(e: ProjectEdge) {
  return {
    id: e.id,
    project: { id: e.other_id, slug: e.other_slug, name: e.other_name },
    relationship_type: e.relationship_type,
    direction: e.direction,
    metadata: e.metadata,
    created_at: toIso(e.created_at)!,
  };
}

/**
 * A directed, typed edge from the project of the path to `target_project`. Both slugs are writes'
 * project names, so unregistered ones create their projects (docs/clients.md, "Names instead of ids"). The same edge
 * twice returns the first (created false).
 */
export async function addRelationship(deps: StoreDeps, auth: Caller, sourceSlug: string, body: RelationshipBody) {
  if (sourceSlug === body.target_project) throw ApiError.invalidField('target_project', 'target_project must differ from the source project');
  const source = await projectForWrite(deps, auth.accountId, sourceSlug);
  const target = await projectForWrite(deps, auth.accountId, body.target_project);
  const { row, created } = await projectRelationshipsRepository.link(deps.db, {
    accountId: auth.accountId,
    sourceId: source.id,
    targetId: target.id,
    relationshipType: body.relationship_type,
    metadata: body.metadata,
  });
  return {
    created,
    relationship: {
      id: row.id,
      source_project: source.slug,
      target_project: target.slug,
      relationship_type: row.relationship_type,
      metadata: row.metadata,
      created_at: toIso(row.created_at)!,
    },
  };
}

async function edges(deps: StoreDeps, auth: Caller, slug: string, directions: Array<'outgoing' | 'incoming'>, types?: string[]) {
  const project = await requireProjectBySlug(deps, auth.accountId, slug);
  const rows = await projectRelationshipsRepository.edgesOf(deps.db, auth.accountId, project.id, { directions, types });
  const data = rows.map(presentEdge);
  return { project: project.slug, data, total: data.length };
}

/** What the project depends on: its outgoing dependency edges. */
export const projectDependencies = (deps: StoreDeps, auth: Caller, slug: string) => edges(deps, auth, slug, ['outgoing'], DEPENDENCY_TYPES);
/** What depends on the project: its incoming dependency edges. */
export const projectDependents = (deps: StoreDeps, auth: Caller, slug: string) => edges(deps, auth, slug, ['incoming'], DEPENDENCY_TYPES);
/** Every edge of the project, both ways, of every type. */
export const relatedProjects = (deps: StoreDeps, auth: Caller, slug: string) => edges(deps, auth, slug, ['outgoing', 'incoming']);

/** A dependent project's decisions and memories nearest to the change text. */
async function affectedBy(deps: EmbeddingDeps, auth: Caller, dependent: ProjectEdge, vector: VectorParam) {
  const db = deps.db;
  const decisions = await decisionsRepository.similar(db, auth.accountId, vector, deps.embedder.model, IMPACT_HITS, dependent.other_slug, true);
  const hits = await memoriesRepository.semanticCandidates(
    db,
    {
      accountId: auth.accountId,
      agentId: auth.agentId,
      projectId: dependent.other_id,
      includeConfidential: false,
      includeArchived: false,
      embeddingModel: deps.embedder.model,
    },
    vector,
    IMPACT_HITS,
  );
  const rows = await memoriesRepository.findLiveByIds(db, auth.accountId, hits.map((h) => h.id));
  const entities = await entitiesRepository.entitiesForMemories(db, auth.accountId, rows.map((r) => r.id));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return {
    slug: dependent.other_slug,
    name: dependent.other_name,
    relationship_type: dependent.relationship_type,
    decisions: decisions.map(({ score, ...row }) => ({ decision: presentDecision(row), score: similarityScore(score) })),
    memories: hits.flatMap((h) => {
      const row = byId.get(h.id);
      return row ? [{ memory: presentMemorySummary(row, entities.get(row.id) ?? []), score: similarityScore(h.score) }] : [];
    }),
  };
}

/**
 * POST /v1/projects/impact-analysis (docs/clients.md, "Additional endpoints"): the projects depending on `project`,
 * each with its decisions and memories nearest to the change, the patterns it shares with
 * `project` (which the change may touch), and `project`'s own active decisions nearest to it.
 */
export async function impactAnalysis(deps: EmbeddingDeps, auth: Caller, body: ImpactAnalysisBody) {
  const project: ProjectRow = await requireProjectBySlug(deps, auth.accountId, body.project);
  const dependents = await projectRelationshipsRepository.edgesOf(deps.db, auth.accountId, project.id, {
    directions: ['incoming'],
    types: DEPENDENCY_TYPES,
  });
  const vector = await embedText(deps.embedder, body.change_description);
  const affected = [];
  const shared = new Map<string, ReturnType<typeof presentPattern>>();
  for (const dependent of dependents) {
    affected.push(await affectedBy(deps, auth, dependent, vector));
    for (const p of await patternsRepository.adoptedByAll(deps.db, auth.accountId, [project.id, dependent.other_id])) {
      shared.set(p.id, presentPattern(p));
    }
  }
  const own = await decisionsRepository.similar(deps.db, auth.accountId, vector, deps.embedder.model, IMPACT_HITS, project.slug, true);
  return {
    project: project.slug,
    change_description: body.change_description,
    affected_projects: affected,
    shared_patterns: [...shared.values()],
    related_decisions: own
      .filter((d) => d.status === 'active')
      .map(({ score, ...row }) => ({ decision: presentDecision(row), score: similarityScore(score) })),
    total_affected: affected.length,
  };
}

/**
 * GET /v1/projects/shared-patterns (docs/clients.md, "Additional endpoints"): patterns adopted by both projects. A
 * read naming an unknown slug matches nothing (docs/clients.md, "Names instead of ids").
 */
export async function sharedPatterns(deps: StoreDeps, auth: Caller, q: { a: string; b: string }) {
  const [a, b] = await Promise.all([
    requireOrNull(deps, auth.accountId, q.a),
    requireOrNull(deps, auth.accountId, q.b),
  ]);
  const rows = a && b ? await patternsRepository.adoptedByAll(deps.db, auth.accountId, [a.id, b.id]) : [];
  const data = rows.map(presentPattern);
  return { data, project_a: q.a, project_b: q.b, total: data.length };
}

async function requireOrNull(deps: StoreDeps, accountId: string, slug: string): Promise<ProjectRow | null> {
  return requireProjectBySlug(deps, accountId, slug).catch((err: unknown) => {
    if (err instanceof ApiError && err.type === 'not_found') return null;
    throw err;
  });
}

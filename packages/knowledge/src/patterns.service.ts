import { ApiError, toIso } from '@ams/core';
import { PageParams, PatternRow, patternsRepository, projectsRepository } from '@ams/db';
import { embedText } from '@ams/embeddings';
import { embeddedText } from '@ams/vocabulary';
import type { Caller, EmbeddingDeps, StoreDeps } from './deps';
import { projectForWrite } from './projects.service';
import { similarityScore } from './similarity-score';

/** Validated input (the route schema types its body with it). */
export interface CreatePatternInput {
  title: string;
  description: string;
  scope: 'global' | 'project';
  category?: string;
  tags: string[];
  example_code?: string;
  source_project?: string;
  metadata: Record<string, unknown>;
}

export type PatchPatternInput = Partial<Omit<CreatePatternInput, 'source_project'>>;

export function presentPattern(row: PatternRow) {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    scope: row.scope,
    category: row.category,
    tags: row.tags,
    example_code: row.example_code,
    source_project_id: row.source_project_id,
    source_project_slug: row.source_project_slug,
    metadata: row.metadata,
    adoption_count: row.adoption_count,
    created_at: toIso(row.created_at)!,
    updated_at: toIso(row.updated_at)!,
  };
}

/** What a pattern's vector embeds (the re-embed repository builds the same text from the same fields). */
export const patternText = (p: { title: string; description: string }) => embeddedText('patterns', p);

async function projectBySlug(deps: StoreDeps, accountId: string, slug: string) {
  const project = await projectsRepository.findLiveBySlug(deps.db, accountId, slug);
  if (!project) throw ApiError.notFound('Project');
  return project;
}

async function requirePattern(deps: StoreDeps, auth: Caller, id: string): Promise<PatternRow> {
  const row = await patternsRepository.findLive(deps.db, auth.accountId, id);
  if (!row) throw ApiError.notFound('Pattern');
  return row;
}

export async function createPattern(deps: EmbeddingDeps, auth: Caller, body: CreatePatternInput) {
  const source = body.source_project ? await projectForWrite(deps, auth.accountId, body.source_project) : undefined;
  const id = await patternsRepository.insert(deps.db, auth.accountId, {
    title: body.title,
    description: body.description,
    scope: body.scope,
    category: body.category ?? null,
    tags: body.tags,
    exampleCode: body.example_code ?? null,
    metadata: body.metadata,
    sourceProjectId: source?.id ?? null,
    embedding: await embedText(deps.embedder, patternText(body)),
    embeddingModel: deps.embedder.model,
  });
  return presentPattern(await requirePattern(deps, auth, id));
}

export async function listPatterns(deps: StoreDeps, auth: Caller, q: { category?: string; scope?: string; tag?: string } & PageParams) {
  const page = await patternsRepository.list(deps.db, auth.accountId, q, q);
  return { ...page, data: page.rows.map(presentPattern) };
}

export const getPattern = async (deps: StoreDeps, auth: Caller, id: string) => presentPattern(await requirePattern(deps, auth, id));

export async function patchPattern(deps: EmbeddingDeps, auth: Caller, id: string, body: PatchPatternInput) {
  const current = await requirePattern(deps, auth, id);
  const textChanged =
    (body.title !== undefined && body.title !== current.title) || (body.description !== undefined && body.description !== current.description);
  await patternsRepository.update(deps.db, auth.accountId, id, {
    title: body.title,
    description: body.description,
    scope: body.scope,
    category: body.category,
    tags: body.tags,
    exampleCode: body.example_code,
    metadata: body.metadata,
    ...(textChanged
      ? { embedding: await embedText(deps.embedder, patternText({ title: body.title ?? current.title, description: body.description ?? current.description })), embeddingModel: deps.embedder.model }
      : {}),
  });
  return presentPattern(await requirePattern(deps, auth, id));
}

export async function deletePattern(deps: StoreDeps, auth: Caller, id: string): Promise<void> {
  if (!(await patternsRepository.softDelete(deps.db, auth.accountId, id))) throw ApiError.notFound('Pattern');
}

/** `{pattern, score}`, plus flat copies a client's listing reads (docs/clients.md, "Additive response members"). */
function searchItem(row: PatternRow, score: number) {
  return { pattern: presentPattern(row), score, title: row.title, name: row.title, category: row.category, description: row.description };
}

/**
 * `project` (a slug) narrows to global patterns plus those the project adopted; `threshold` is a
 * minimum score. An empty query (the GET form allows it) lists patterns unranked, score 0.
 */
export async function searchPatterns(
  deps: EmbeddingDeps,
  auth: Caller,
  body: { query: string; limit: number; category?: string; project?: string; threshold?: number },
) {
  const forProjectId = body.project === undefined ? undefined : ((await projectsRepository.findLiveBySlug(deps.db, auth.accountId, body.project))?.id ?? null);
  if (body.query.trim() === '') {
    const page = await patternsRepository.list(deps.db, auth.accountId, { category: body.category }, { limit: body.limit, offset: 0 });
    const rows = forProjectId === undefined ? page.rows : page.rows.filter((r) => r.scope === 'global');
    const data = rows.map((row) => searchItem(row, 0));
    return { data, query: body.query, total: data.length };
  }
  const vector = await embedText(deps.embedder, body.query);
  const rows = await patternsRepository.similar(deps.db, auth.accountId, vector, deps.embedder.model, body.limit, body.category, forProjectId);
  const data = rows
    .map(({ score, ...row }) => searchItem(row, similarityScore(score)))
    .filter((d) => body.threshold === undefined || d.score >= body.threshold);
  return { data, query: body.query, total: data.length };
}

/** Idempotent per project: the count moves once however often it is called. */
export async function adoptPattern(deps: StoreDeps, auth: Caller, id: string, projectSlug: string) {
  await requirePattern(deps, auth, id);
  const project = await projectForWrite(deps, auth.accountId, projectSlug);
  // false: the project was deleted between the look-up and the adoption.
  if (!(await patternsRepository.adopt(deps.db, auth.accountId, id, project.id))) throw ApiError.notFound('Project');
  return presentPattern(await requirePattern(deps, auth, id));
}

export async function unadoptPattern(deps: StoreDeps, auth: Caller, id: string, projectSlug: string): Promise<void> {
  await requirePattern(deps, auth, id);
  const project = await projectBySlug(deps, auth.accountId, projectSlug);
  if (!(await patternsRepository.unadopt(deps.db, auth.accountId, id, project.id))) {
    throw new ApiError('not_found', `Project "${projectSlug}" has not adopted this pattern`);
  }
}

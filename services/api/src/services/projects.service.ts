import { ApiError, toIso, toUnixSeconds } from '@ams/core';
import { decisionsRepository, isUniqueViolation, PageParams, patternsRepository, ProjectRow, projectsRepository } from '@ams/db';
import type { AppContext, AuthContext } from '../context';

/** Validated input (the route schema types its body with it). */
export interface CreateProjectInput {
  name: string;
  slug: string;
  description?: string;
  stack: Record<string, unknown>;
  repo_url?: string;
  metadata: Record<string, unknown>;
}

export type PatchProjectInput = Partial<Omit<CreateProjectInput, 'slug'>>;

const SLUG_TAKEN = 'projects_account_slug_key';
const CONTEXT_MEMORIES = 20;

export function presentProject(row: ProjectRow, memoryCount: number) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    stack: row.stack,
    repo_url: row.repo_url,
    metadata: row.metadata,
    memory_count: memoryCount,
    created_at: toIso(row.created_at)!,
    updated_at: toIso(row.updated_at)!,
  };
}

export async function createProject(ctx: AppContext, auth: AuthContext, body: CreateProjectInput) {
  try {
    const row = await projectsRepository.insert(ctx.db.knex, {
      accountId: auth.accountId,
      slug: body.slug,
      name: body.name,
      description: body.description ?? null,
      stack: body.stack,
      repoUrl: body.repo_url ?? null,
      metadata: body.metadata,
    });
    return presentProject(row, 0);
  } catch (err) {
    if (isUniqueViolation(err, SLUG_TAKEN)) throw ApiError.conflict(`A project with slug "${body.slug}" already exists`);
    throw err;
  }
}

export async function listProjects(ctx: AppContext, auth: AuthContext, page: PageParams) {
  const result = await projectsRepository.list(ctx.db.knex, auth.accountId, page);
  const counts = await projectsRepository.memoryCounts(ctx.db.knex, auth.accountId, result.rows.map((r) => r.id));
  return { ...result, data: result.rows.map((r) => presentProject(r, counts.get(r.id) ?? 0)) };
}

async function requireProject(ctx: AppContext, auth: AuthContext, id: string): Promise<ProjectRow> {
  const row = await projectsRepository.findLive(ctx.db.knex, auth.accountId, id);
  if (!row) throw ApiError.notFound('Project');
  return row;
}

async function present(ctx: AppContext, row: ProjectRow) {
  const counts = await projectsRepository.memoryCounts(ctx.db.knex, row.account_id, [row.id]);
  return presentProject(row, counts.get(row.id) ?? 0);
}

export async function getProject(ctx: AppContext, auth: AuthContext, id: string) {
  return present(ctx, await requireProject(ctx, auth, id));
}

export async function patchProject(ctx: AppContext, auth: AuthContext, id: string, body: PatchProjectInput) {
  await requireProject(ctx, auth, id);
  const row = await projectsRepository.update(ctx.db.knex, auth.accountId, id, {
    name: body.name,
    description: body.description,
    stack: body.stack,
    repoUrl: body.repo_url,
    metadata: body.metadata,
  });
  if (!row) throw ApiError.notFound('Project');
  return present(ctx, row);
}

/** Soft delete, keeping its memories; in the same transaction it stops counting as a pattern adopter. */
export async function deleteProject(ctx: AppContext, auth: AuthContext, id: string): Promise<void> {
  const deleted = await ctx.db.knex.transaction(async (trx) => {
    if (!(await projectsRepository.softDelete(trx, auth.accountId, id))) return false;
    await patternsRepository.withdrawProjectAdoptions(trx, auth.accountId, id);
    return true;
  });
  if (!deleted) throw ApiError.notFound('Project');
}

/** What an agent starting work on a project should know: its stack, key memories, decisions and patterns. */
export async function projectContext(ctx: AppContext, auth: AuthContext, slug: string) {
  const project = await projectsRepository.findLiveBySlug(ctx.db.knex, auth.accountId, slug);
  if (!project) throw ApiError.notFound('Project');
  const [memories, decisions, patterns] = await Promise.all([
    projectsRepository.contextMemories(ctx.db.knex, auth.accountId, project.id, CONTEXT_MEMORIES),
    decisionsRepository.activeForProject(ctx.db.knex, auth.accountId, project.slug),
    patternsRepository.adoptedByProject(ctx.db.knex, auth.accountId, project.id),
  ]);
  return {
    project: { id: project.id, slug: project.slug, name: project.name, stack: project.stack },
    memories: memories.map((m) => ({
      id: m.id,
      content: m.content,
      memory_type: m.memory_type,
      importance: Math.round(Number(m.importance) * 1e6) / 1e6,
      created_at: toUnixSeconds(m.created_at)!,
    })),
    decisions,
    patterns,
  };
}

import { ApiError, toIso, toUnixSeconds } from '@ams/core';
import { decisionsRepository, isUniqueViolation, PageParams, patternsRepository, ProjectRow, projectsRepository } from '@ams/db';
import type { Caller, StoreDeps } from './deps';

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
const CONTEXT_RECENT = 5;

/** A markdown digest of the project context, ready for a prompt. */
function formatProjectContext(
  name: string,
  hot: Array<{ content: string }>,
  decisions: Array<{ title: string; rationale: string }>,
  patterns: Array<{ title: string; description: string }>,
): string {
  const section = (title: string, lines: string[]) => (lines.length ? [`## ${title}`, ...lines.map((l) => `- ${l.replace(/\s+/g, ' ').trim()}`), ''] : []);
  return [
    `# Project: ${name}`,
    '',
    ...section('Key memories', hot.map((m) => m.content)),
    ...section('Active decisions', decisions.map((d) => `${d.title}: ${d.rationale}`)),
    ...section('Adopted patterns', patterns.map((p) => `${p.title}: ${p.description}`)),
  ]
    .join('\n')
    .trimEnd();
}

function presentProject(row: ProjectRow, memoryCount: number) {
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

/**
 * Registers a project. A project that a write created by naming its slug is completed in place
 * (its id and memories kept, the registration's fields written); a registered slug is 409.
 */
export async function createProject(deps: StoreDeps, auth: Caller, body: CreateProjectInput) {
  const fields = {
    accountId: auth.accountId,
    slug: body.slug,
    name: body.name,
    description: body.description ?? null,
    stack: body.stack,
    repoUrl: body.repo_url ?? null,
    metadata: body.metadata,
  };
  try {
    return presentProject(await projectsRepository.insert(deps.db, fields), 0);
  } catch (err) {
    if (!isUniqueViolation(err, SLUG_TAKEN)) throw err;
  }
  const completed = await projectsRepository.completeRegistration(deps.db, fields);
  if (!completed) throw ApiError.conflict(`A project with slug "${body.slug}" already exists`);
  return present(deps, completed);
}

export async function listProjects(deps: StoreDeps, auth: Caller, page: PageParams) {
  const result = await projectsRepository.list(deps.db, auth.accountId, page);
  const counts = await projectsRepository.memoryCounts(deps.db, auth.accountId, result.rows.map((r) => r.id));
  return { ...result, data: result.rows.map((r) => presentProject(r, counts.get(r.id) ?? 0)) };
}

async function requireProject(deps: StoreDeps, auth: Caller, id: string): Promise<ProjectRow> {
  const row = await projectsRepository.findLive(deps.db, auth.accountId, id);
  if (!row) throw ApiError.notFound('Project');
  return row;
}

async function present(deps: StoreDeps, row: ProjectRow) {
  const counts = await projectsRepository.memoryCounts(deps.db, row.account_id, [row.id]);
  return presentProject(row, counts.get(row.id) ?? 0);
}

export async function getProject(deps: StoreDeps, auth: Caller, id: string) {
  return present(deps, await requireProject(deps, auth, id));
}

/** The live project of that slug, else 404: a project named in a read path. */
export async function requireProjectBySlug(deps: StoreDeps, accountId: string, slug: string): Promise<ProjectRow> {
  const row = await projectsRepository.findLiveBySlug(deps.db, accountId, slug);
  if (!row) throw ApiError.notFound('Project');
  return row;
}

/** GET /v1/projects/{slug}: the slug form of GET by id (docs/clients.md, "Method and path variants"). */
export async function getProjectBySlug(deps: StoreDeps, auth: Caller, slug: string) {
  return present(deps, await requireProjectBySlug(deps, auth.accountId, slug));
}

/** A project slug named by a write: created when the account has no such project (docs/clients.md, "Names instead of ids"). */
export async function projectForWrite(deps: StoreDeps, accountId: string, slug: string): Promise<ProjectRow> {
  return projectsRepository.ensureBySlug(deps.db, accountId, slug);
}

export async function patchProject(deps: StoreDeps, auth: Caller, id: string, body: PatchProjectInput) {
  await requireProject(deps, auth, id);
  const row = await projectsRepository.update(deps.db, auth.accountId, id, {
    name: body.name,
    description: body.description,
    stack: body.stack,
    repoUrl: body.repo_url,
    metadata: body.metadata,
  });
  if (!row) throw ApiError.notFound('Project');
  return present(deps, row);
}

/** Soft delete, keeping its memories; in the same transaction it stops counting as a pattern adopter. */
export async function deleteProject(deps: StoreDeps, auth: Caller, id: string): Promise<void> {
  const deleted = await deps.db.transaction(async (trx) => {
    if (!(await projectsRepository.softDelete(trx, auth.accountId, id))) return false;
    await patternsRepository.withdrawProjectAdoptions(trx, auth.accountId, id);
    return true;
  });
  if (!deleted) throw ApiError.notFound('Project');
}

/** What an agent starting work on a project should know: its stack, key memories, decisions and patterns. */
export async function projectContext(deps: StoreDeps, auth: Caller, slug: string) {
  const project = await projectsRepository.findLiveBySlug(deps.db, auth.accountId, slug);
  if (!project) throw ApiError.notFound('Project');
  const [memories, decisions, patterns] = await Promise.all([
    projectsRepository.contextMemories(deps.db, auth.accountId, project.id, CONTEXT_MEMORIES),
    decisionsRepository.activeForProject(deps.db, auth.accountId, project.slug),
    patternsRepository.adoptedByProject(deps.db, auth.accountId, project.id),
  ]);
  const memoryItems = memories.map((m) => ({
    id: m.id,
    content: m.content,
    memory_type: m.memory_type,
    importance: Math.round(Number(m.importance) * 1e6) / 1e6,
    created_at: toUnixSeconds(m.created_at)!,
  }));
  const hot = memoryItems.filter((_m, i) => memories[i]!.tier === 'hot');
  return {
    project: { id: project.id, slug: project.slug, name: project.name, stack: project.stack },
    memories: memoryItems,
    decisions: decisions.map((d) => ({ id: d.id, title: d.title, status: d.status })),
    patterns: patterns.map((p) => ({ id: p.id, title: p.title, category: p.category })),
    // Additive members some clients read (docs/clients.md, "Additive response members").
    hot_memories: hot,
    recent_decisions: decisions.slice(0, CONTEXT_RECENT).map((d) => ({
      id: d.id,
      title: d.title,
      status: d.status,
      rationale: d.rationale,
      created_at: toIso(d.created_at)!,
    })),
    active_patterns: patterns.map((p) => ({ id: p.id, title: p.title, category: p.category, description: p.description })),
    formatted: formatProjectContext(project.name, hot, decisions.slice(0, CONTEXT_RECENT), patterns),
  };
}

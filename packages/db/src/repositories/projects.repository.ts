import type { Knex } from 'knex';
import { Page, PageParams, paginate } from '../pagination';

export interface ProjectRow {
  account_id: string;
  id: string;
  slug: string;
  name: string;
  description: string | null;
  stack: Record<string, unknown>;
  repo_url: string | null;
  metadata: Record<string, unknown>;
  /** false while the project exists only because a write named its slug. */
  registered: boolean;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface ProjectPatch {
  name?: string;
  description?: string | null;
  stack?: Record<string, unknown>;
  repoUrl?: string | null;
  metadata?: Record<string, unknown>;
}

export const projectsRepository = {
  async findLive(db: Knex, accountId: string, id: string): Promise<ProjectRow | undefined> {
    return db('projects').where({ account_id: accountId, id }).whereNull('deleted_at').first();
  },

  async findLiveBySlug(db: Knex, accountId: string, slug: string): Promise<ProjectRow | undefined> {
    return db('projects').where({ account_id: accountId, slug }).whereNull('deleted_at').first();
  },

  /** The live project of that slug, created unregistered (named after its slug) when missing: writes may name new projects (docs/clients.md, \"Names instead of ids\"). */
  async ensureBySlug(db: Knex, accountId: string, slug: string): Promise<ProjectRow> {
    await db.raw(
      `INSERT INTO projects (account_id, slug, name, registered) VALUES (?, ?, ?, false)
       ON CONFLICT (account_id, slug) WHERE deleted_at IS NULL DO NOTHING`,
      [accountId, slug, slug],
    );
    const row = await projectsRepository.findLiveBySlug(db, accountId, slug);
    if (!row) throw new Error(`project ${slug} vanished after upsert`);
    return row;
  },

  /** Throws the unique violation (projects_account_slug_key) on a live duplicate slug. */
  async insert(db: Knex, p: ProjectPatch & { accountId: string; slug: string; name: string }): Promise<ProjectRow> {
    const [row] = await db('projects')
      .insert({
        account_id: p.accountId,
        slug: p.slug,
        name: p.name,
        description: p.description ?? null,
        stack: p.stack ?? {},
        repo_url: p.repoUrl ?? null,
        metadata: p.metadata ?? {},
      })
      .returning('*');
    return row as ProjectRow;
  },

  /**
   * Registers the live, not yet registered project of that slug with the registration's fields
   * (metadata merged into what it has); undefined when there is none. The row lock makes two
   * concurrent registrations of one slug serial: the second finds it registered.
   */
  async completeRegistration(db: Knex, p: ProjectPatch & { accountId: string; slug: string; name: string }): Promise<ProjectRow | undefined> {
    const [row] = await db('projects')
      .where({ account_id: p.accountId, slug: p.slug, registered: false })
      .whereNull('deleted_at')
      .update({
        registered: true,
        name: p.name,
        description: p.description ?? null,
        stack: p.stack ?? {},
        repo_url: p.repoUrl ?? null,
        metadata: db.raw('projects.metadata || ?::jsonb', [JSON.stringify(p.metadata ?? {})]),
        updated_at: db.fn.now(),
      })
      .returning('*');
    return row as ProjectRow | undefined;
  },

  async list(db: Knex, accountId: string, page: PageParams): Promise<Page<ProjectRow>> {
    return paginate<ProjectRow>(db('projects').where('projects.account_id', accountId).whereNull('projects.deleted_at'), 'projects', page);
  },

  /** Metadata merged (jsonb ||); stack replaced (it is a description, not an accumulation). */
  async update(db: Knex, accountId: string, id: string, p: ProjectPatch): Promise<ProjectRow | undefined> {
    const set: Record<string, unknown> = { updated_at: db.fn.now() };
    if (p.name !== undefined) set.name = p.name;
    if (p.description !== undefined) set.description = p.description;
    if (p.stack !== undefined) set.stack = p.stack;
    if (p.repoUrl !== undefined) set.repo_url = p.repoUrl;
    if (p.metadata !== undefined) set.metadata = db.raw('projects.metadata || ?::jsonb', [JSON.stringify(p.metadata)]);
    const [row] = await db('projects').where({ account_id: accountId, id }).whereNull('deleted_at').update(set).returning('*');
    return row as ProjectRow | undefined;
  },

  /** Soft delete; memories keep their project_id. Locks the row until the caller's transaction ends. */
  async softDelete(db: Knex, accountId: string, id: string): Promise<boolean> {
    const n = await db('projects').where({ account_id: accountId, id }).whereNull('deleted_at').update({ deleted_at: db.fn.now(), updated_at: db.fn.now() });
    return n > 0;
  },

  async memoryCounts(db: Knex, accountId: string, projectIds: string[]): Promise<Map<string, number>> {
    if (projectIds.length === 0) return new Map();
    const rows: Array<{ project_id: string; n: number }> = await db('memories')
      .where('account_id', accountId)
      .whereIn('project_id', projectIds)
      .whereNull('deleted_at')
      .groupBy('project_id')
      .select('project_id', db.raw('count(*) AS n'));
    return new Map(rows.map((r) => [r.project_id, Number(r.n)]));
  },

  /** The project's most important live, non-archived, non-confidential memories, newest first on ties. */
  async contextMemories(db: Knex, accountId: string, projectId: string, limit: number) {
    return db('memories')
      .where({ account_id: accountId, project_id: projectId, archived: false, visibility: 'private' })
      .whereNull('deleted_at')
      .orderBy([{ column: 'importance', order: 'desc' }, { column: 'created_at', order: 'desc' }])
      .limit(limit)
      .select('id', 'content', 'memory_type', 'importance', 'tier', 'created_at') as Promise<
      Array<{ id: string; content: string; memory_type: string; importance: number; tier: string; created_at: Date }>
    >;
  },
};

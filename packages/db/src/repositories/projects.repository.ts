import type { Knex } from 'knex';

export interface ProjectRow {
  account_id: string;
  id: string;
  slug: string;
  name: string;
  description: string | null;
  stack: Record<string, unknown>;
  repo_url: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export const projectsRepository = {
  async findLive(db: Knex, accountId: string, id: string): Promise<ProjectRow | undefined> {
    return db('projects').where({ account_id: accountId, id }).whereNull('deleted_at').first();
  },

  async findLiveBySlug(db: Knex, accountId: string, slug: string): Promise<ProjectRow | undefined> {
    return db('projects').where({ account_id: accountId, slug }).whereNull('deleted_at').first();
  },
};

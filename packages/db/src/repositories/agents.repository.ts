import type { Knex } from 'knex';

export interface AgentRow {
  account_id: string;
  id: string;
  name: string;
  description: string | null;
  config: Record<string, unknown>;
  metadata: Record<string, unknown>;
  last_active_at: Date | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export const agentsRepository = {
  async findLive(db: Knex, accountId: string, id: string): Promise<AgentRow | undefined> {
    return db('agents').where({ account_id: accountId, id }).whereNull('deleted_at').first();
  },
};

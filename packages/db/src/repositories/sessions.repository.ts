import type { Knex } from 'knex';

export interface SessionRow {
  account_id: string;
  id: string;
  agent_id: string | null;
  external_id: string | null;
  project: string | null;
  status: 'active' | 'ended';
  title: string | null;
  summary: string | null;
  summary_generated_at: Date | null;
  metadata: Record<string, unknown>;
  started_at: Date;
  ended_at: Date | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export const sessionsRepository = {
  async findLive(db: Knex, accountId: string, id: string): Promise<SessionRow | undefined> {
    return db('sessions').where({ account_id: accountId, id }).whereNull('deleted_at').first();
  },
};

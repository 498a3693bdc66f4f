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

  async findLiveByName(db: Knex, accountId: string, name: string): Promise<AgentRow | undefined> {
    return db('agents').where({ account_id: accountId, name }).whereNull('deleted_at').first();
  },

  /** The account's live agent of that name, created if missing; safe when callers race. */
  async ensureByName(db: Knex, accountId: string, name: string): Promise<AgentRow> {
    await db.raw(
      `INSERT INTO agents (account_id, name) VALUES (?, ?)
       ON CONFLICT (account_id, name) WHERE deleted_at IS NULL DO NOTHING`,
      [accountId, name],
    );
    const row = await agentsRepository.findLiveByName(db, accountId, name);
    if (!row) throw new Error(`agent ${name} vanished after upsert`);
    return row;
  },
};

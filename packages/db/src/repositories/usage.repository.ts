import type { Knex } from 'knex';

export interface AccountUsage {
  memories: number;
  agents: number;
  projects: number;
  entities: number;
  /** Bytes of live memory content and metadata (embeddings excluded). */
  storage_bytes: number;
}

export const usageRepository = {
  /** What the account holds now: live rows per resource and the size of its memories. */
  async forAccount(db: Knex, accountId: string): Promise<AccountUsage> {
    const { rows } = await db.raw(
      `SELECT
         (SELECT count(*) FROM memories WHERE account_id = :a AND deleted_at IS NULL) AS memories,
         (SELECT coalesce(sum(octet_length(content) + octet_length(metadata::text)), 0)
            FROM memories WHERE account_id = :a AND deleted_at IS NULL) AS storage_bytes,
         (SELECT count(*) FROM agents WHERE account_id = :a AND deleted_at IS NULL) AS agents,
         (SELECT count(*) FROM projects WHERE account_id = :a AND deleted_at IS NULL) AS projects,
         (SELECT count(*) FROM entities WHERE account_id = :a AND deleted_at IS NULL) AS entities`,
      { a: accountId },
    );
    const r = rows[0] as Record<keyof AccountUsage, string | number>;
    return {
      memories: Number(r.memories),
      agents: Number(r.agents),
      projects: Number(r.projects),
      entities: Number(r.entities),
      storage_bytes: Number(r.storage_bytes),
    };
  },
};

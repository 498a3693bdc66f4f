import type { MemoryChange } from '@ams/vocabulary';
import type { Knex } from 'knex';
import { onCitusCoordinator } from '../citus';

/** One recorded version of a memory (see migration 20261126_010_memory_history). */
export interface MemoryVersionRow {
  account_id: string;
  memory_id: string;
  version: number;
  change: MemoryChange;
  /** Column names as stored (the presenter speaks the memory's public names). */
  changed_fields: string[];
  /** Old values of changed_fields (not `embedding`, which is never stored here). */
  before: Record<string, unknown>;
  /** The memory's tracked state after this version. */
  state: Record<string, unknown>;
  actor_key_id: string | null;
  actor_agent_id: string | null;
  created_at: Date;
}

/** Who is changing memories in a transaction, and (optionally) what kind of change it is. */
export interface VersionActor {
  keyId?: string | null;
  agentId?: string | null;
  /** Overrides the kind the trigger infers (e.g. 'expire', 'restore_version'). */
  change?: MemoryChange;
}

/** What a version page starts after: the version number (newest first). */
export interface VersionPageParams {
  limit: number;
  offset: number;
  beforeVersion?: number;
}

/** The transaction settings the history trigger reads (see migration 010). */
function actorSettings(actor: VersionActor): Array<[string, string]> {
  return [
    ['ams.actor_key_id', actor.keyId ?? ''],
    ['ams.actor_agent_id', actor.agentId ?? ''],
    ['ams.change', actor.change ?? ''],
  ];
}

/**
 * A one-row subquery naming `actor` as it is evaluated (set_config's is_local: for the rest of the
 * transaction, the statement's own when there is no other), for a single statement to join — or
 * null on a Citus coordinator, whose shards only see SET LOCAL (use setActor in a transaction).
 * Saves a write the transaction and the extra round trip setActor costs.
 */
async function actorInStatement(db: Knex, actor: VersionActor): Promise<{ subquery: Knex.Raw } | null> {
  if (await onCitusCoordinator(db)) return null;
  const settings = actorSettings(actor);
  // Wrapped: a Raw is thenable, and an async function would run it instead of returning it.
  return { subquery: db.raw(`SELECT ${settings.map(() => 'set_config(?, ?, true)').join(', ')}`, settings.flat()) };
}

export const memoryVersionsRepository = {
  actorInStatement,

  /**
   * Names the writer of this transaction's memory changes for the history trigger. Transaction
   * scoped (set_config's is_local): call it inside the transaction that writes.
   */
  async setActor(trx: Knex, actor: VersionActor): Promise<void> {
    const statement = await actorInStatement(trx, actor);
    if (statement) {
      await statement.subquery;
      return;
    }
    // The trigger runs on the workers' shards, which set_config on the coordinator never reaches:
    // Citus forwards SET LOCAL (only that, and only with propagate_set_commands = 'local') to the
    // workers taking part in the transaction. Plain SQL literals: SET takes no parameters.
    const literal = (v: string) => `'${v.replace(/'/g, "''")}'`;
    await trx.raw(["SET LOCAL citus.propagate_set_commands TO 'local'", ...actorSettings(actor).map(([k, v]) => `SET LOCAL ${k} TO ${literal(v)}`)].join('; '));
  },

  /** Newest first; `beforeVersion` is the keyset (a page's last version). */
  async list(db: Knex, accountId: string, memoryId: string, page: VersionPageParams): Promise<{ rows: MemoryVersionRow[]; hasMore: boolean; totalCount: number }> {
    const base = db('memory_versions').where({ account_id: accountId, memory_id: memoryId });
    const count = await base.clone().count<{ count: number }[]>('* as count').first();
    const q = base.clone().select('*').orderBy('version', 'desc').limit(page.limit + 1);
    if (page.beforeVersion !== undefined) q.where('version', '<', page.beforeVersion);
    else if (page.offset > 0) q.offset(page.offset);
    const rows: MemoryVersionRow[] = await q;
    return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit, totalCount: Number(count?.count ?? 0) };
  },

  async find(db: Knex, accountId: string, memoryId: string, version: number): Promise<MemoryVersionRow | undefined> {
    return db('memory_versions').select('*').where({ account_id: accountId, memory_id: memoryId, version }).first();
  },

  /**
   * Versions as an import carries them: each replaces what the account holds under its number
   * (the import's own insert recorded the memory's current version already; the export's record
   * of it, with its original time and actor, wins).
   */
  async upsertMany(db: Knex, rows: Array<Omit<MemoryVersionRow, 'created_at'> & { created_at: Date | string }>): Promise<void> {
    if (rows.length === 0) return;
    await db('memory_versions')
      .insert(rows.map((r) => ({ ...r, before: JSON.stringify(r.before), state: JSON.stringify(r.state) })))
      .onConflict(['account_id', 'memory_id', 'version'])
      .merge();
  },

  /**
   * Retention: deletes up to `limit` versions older than `olderThan` or more than `keep` behind
   * their memory's current version (either bound may be absent), never a memory's current
   * version, so every memory keeps its latest state. Returns how many it deleted.
   */
  async prune(db: Knex, bounds: { olderThan?: Date; keep?: number }, limit: number): Promise<number> {
    if (!bounds.olderThan && !bounds.keep) return 0;
    const conditions: string[] = [];
    const bindings: Array<Date | number> = [];
    if (bounds.olderThan) {
      conditions.push('v.created_at < ?');
      bindings.push(bounds.olderThan);
    }
    if (bounds.keep) {
      conditions.push('v.version <= m.version - ?');
      bindings.push(bounds.keep);
    }
    const { rows } = await db.raw(
      `DELETE FROM memory_versions d
        WHERE (d.account_id, d.memory_id, d.version) IN (
          SELECT v.account_id, v.memory_id, v.version
            FROM memory_versions v
            JOIN memories m ON m.account_id = v.account_id AND m.id = v.memory_id
           WHERE v.version < m.version AND (${conditions.join(' OR ')})
           LIMIT ?)
       RETURNING d.version`,
      [...bindings, limit],
    );
    return (rows as unknown[]).length;
  },
};

import type { Knex } from 'knex';
import { activityIsStale } from './agents.repository';
import { MEMORY_RETURNING, memoryInsertRow, MemoryRow, NewMemory } from './memories.repository';
import { memoryVersionsRepository, VersionActor } from './memory-versions.repository';
import { oneShotInsert, OutboxEvent, RecordedDelivery, subscribedInsert } from './webhook-deliveries.repository';

/** An entity found in a new memory: upserted for its account (same type and name = same entity) and linked. */
export interface FoundEntity {
  accountId: string;
  memoryId: string;
  name: string;
  entityType: string;
  relevance: number;
}

export interface NewMemoryRecords {
  /** Ids chosen by the caller, so events and links can name the rows before they exist. */
  memories: Array<NewMemory & { id: string }>;
  entities: FoundEntity[];
  /** Outbox events for the account's subscribed webhooks, plus a one-shot delivery where `url` is set. */
  events: Array<OutboxEvent & { url?: string | null }>;
}

type Stored = { rows: MemoryRow[]; deliveries: RecordedDelivery[] };

/** The one statement; `actor`, when given, is a one-row subquery naming the history's writer. */
async function insertStatement(db: Knex, r: NewMemoryRecords, actor: Knex.Raw | null): Promise<Stored> {
  const insert = db('memories').insert(r.memories.map((m) => memoryInsertRow(m, db))).returning(MEMORY_RETURNING).toSQL();
  const oneShots = r.events.flatMap((e) => (e.url ? [{ ...e, url: e.url }] : []));
  const { rows } = await db.raw(
    `WITH mem AS (?),
     -- Same name (case-insensitive) and type is the same entity; the no-op update makes RETURNING
     -- include existing rows. Rows are taken in one fixed order, so concurrent creates naming the
     -- same entities lock them in the same order and cannot deadlock.
     ent AS (
       INSERT INTO entities (account_id, name, entity_type)
       SELECT DISTINCT ON (x.account_id, x.entity_type, lower(x.name)) x.account_id, x.name, x.entity_type
         FROM jsonb_to_recordset(?::jsonb) AS x(account_id uuid, name text, entity_type text)
        ORDER BY x.account_id, x.entity_type, lower(x.name), x.name
       ON CONFLICT (account_id, entity_type, lower(name)) WHERE deleted_at IS NULL
       DO UPDATE SET updated_at = entities.updated_at
       RETURNING account_id, id, name, entity_type
     ), linked AS (
       INSERT INTO entity_memory_links (account_id, entity_id, memory_id, relationship, relevance_score)
       SELECT x.account_id, ent.id, x.memory_id, 'mentioned_in', x.relevance
         FROM jsonb_to_recordset(?::jsonb) AS x(account_id uuid, memory_id uuid, name text, entity_type text, relevance real)
         JOIN ent ON ent.account_id = x.account_id AND ent.entity_type = x.entity_type AND lower(ent.name) = lower(x.name)
       ON CONFLICT (account_id, entity_id, memory_id, relationship) DO NOTHING
     ), active AS (
       UPDATE agents a SET last_active_at = now()
         FROM (SELECT DISTINCT account_id, agent_id FROM mem) m
        WHERE a.account_id = ANY (?::uuid[]) AND a.account_id = m.account_id AND a.id = m.agent_id
          AND ${activityIsStale('a')}
     ), subscribed AS (?), one_shots AS (?), actor AS MATERIALIZED (?)
     SELECT mem.*, (SELECT coalesce(json_agg(json_build_object('account_id', d.account_id, 'id', d.id)), '[]'::json)
                      FROM (SELECT account_id, id FROM subscribed UNION ALL SELECT account_id, id FROM one_shots) d) AS deliveries
       -- Joined so it is evaluated: the history trigger (AFTER INSERT, at the statement's end) reads it.
       FROM mem CROSS JOIN actor`,
    [
      db.raw(insert.sql, insert.bindings),
      JSON.stringify(r.entities.map((e) => ({ account_id: e.accountId, name: e.name, entity_type: e.entityType }))),
      JSON.stringify(r.entities.map((e) => ({ account_id: e.accountId, memory_id: e.memoryId, name: e.name, entity_type: e.entityType, relevance: e.relevance }))),
      // The accounts as values too: on Citus the agents' update then prunes to their shards.
      [...new Set(r.memories.map((m) => m.accountId))],
      subscribedInsert(db, r.events),
      oneShotInsert(db, oneShots),
      actor ?? db.raw('SELECT 1'),
    ],
  );
  const stored = rows as Array<MemoryRow & { deliveries: unknown }>;
  const byId = new Map(stored.map(({ deliveries: _d, ...row }) => [row.id, row as MemoryRow]));
  const deliveries = (stored[0]?.deliveries ?? []) as Array<{ account_id: string; id: string }>;
  return {
    rows: r.memories.map((m) => byId.get(m.id)!),
    deliveries: (typeof deliveries === 'string' ? (JSON.parse(deliveries) as typeof deliveries) : deliveries).map((d) => ({ accountId: d.account_id, deliveryId: d.id })),
  };
}

export const newMemoriesRepository = {
  /**
   * Stores new memories with everything a create records, in ONE statement (atomic by itself, and
   * also right inside a transaction): the rows; their entities, upserted per account, and links;
   * their agents marked active (to the minute); the outbox deliveries of `events`; and, given an
   * `actor`, the writer their first version names. A create then costs one round trip after its
   * embed, however much it records. Rows come back in the order given. On Citus the actor needs
   * SET LOCAL, so that case runs in a transaction (the caller's, or one of its own).
   */
  async insertWithRecords(db: Knex, r: NewMemoryRecords, actor?: VersionActor): Promise<Stored> {
    if (r.memories.length === 0) return { rows: [], deliveries: [] };
    if (!actor) return insertStatement(db, r, null);
    const named = await memoryVersionsRepository.actorInStatement(db, actor);
    if (named) return insertStatement(db, r, named.subquery);
    const run = async (trx: Knex) => {
      await memoryVersionsRepository.setActor(trx, actor);
      return insertStatement(trx, r, null);
    };
    return (db as { isTransaction?: boolean }).isTransaction ? run(db) : db.transaction(run);
  },
};

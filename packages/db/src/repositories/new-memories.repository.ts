import type { Knex } from 'knex';
import { onCitusCoordinator } from '../citus';
import { runStatement } from '../hot-statement';
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

/**
 * The create's statement. `actor`, when given, is a one-row subquery naming the history's writer;
 * `linksAfter` (Citus) writes the entity links in a second statement, so `db` must then be a
 * transaction.
 */
async function insertStatement(db: Knex, r: NewMemoryRecords, actor: Knex.Raw | null, linksAfter: boolean): Promise<Stored> {
  const insert = db('memories').insert(r.memories.map((m) => memoryInsertRow(m, db))).returning(MEMORY_RETURNING).toSQL();
  const oneShots = r.events.flatMap((e) => (e.url ? [{ ...e, url: e.url }] : []));
  const accounts = [...new Set(r.memories.map((m) => m.accountId))];
  // Steps with nothing to do are left out: on Citus each data-modifying CTE is a step of its
  // own, a round trip to the account's worker (no entities: no entity or link step).
  const steps: Array<[string, Knex.RawBinding[]]> = [['mem AS (?)', [db.raw(insert.sql, insert.bindings)]]];
  // On Citus the links are a statement after this one: a CTE reading another's rows in an
  // INSERT … SELECT (links from ent) makes Citus ship those rows to every worker, so a create
  // would need all of them up; a later statement in the same transaction reads the entities
  // table instead, on the account's shard alone. PostgreSQL keeps the one statement.
  if (r.entities.length > 0) {
    // Same name (case-insensitive) and type is the same entity; the no-op update makes RETURNING
    // include existing rows. Rows are taken in one fixed order, so concurrent creates naming the
    // same entities lock them in the same order and cannot deadlock.
    steps.push([
      `ent AS (
         INSERT INTO entities (account_id, name, entity_type)
         SELECT DISTINCT ON (x.account_id, x.entity_type, lower(x.name)) x.account_id, x.name, x.entity_type
           FROM jsonb_to_recordset(?::jsonb) AS x(account_id uuid, name text, entity_type text)
          ORDER BY x.account_id, x.entity_type, lower(x.name), x.name
         ON CONFLICT (account_id, entity_type, lower(name)) WHERE deleted_at IS NULL
         DO UPDATE SET updated_at = entities.updated_at
         RETURNING account_id, id, name, entity_type
       )`,
      [JSON.stringify(r.entities.map((e) => ({ account_id: e.accountId, name: e.name, entity_type: e.entityType })))],
    ]);
    if (!linksAfter) steps.push(['linked AS (?)', [linksInsert(db, r.entities, 'ent')]]);
  }
  // The agents by value, not from mem's rows: on Citus a step reading mem would wait for mem's
  // rows to be shipped to the worker first. (Agent ids are uuids: an id names one account's agent.)
  steps.push([
    `active AS (
       UPDATE agents a SET last_active_at = now()
        WHERE a.account_id = ANY (?::uuid[]) AND a.id = ANY (?::uuid[]) AND ${activityIsStale('a')}
     )`,
    [accounts, [...new Set(r.memories.map((m) => m.agentId))]],
  ]);
  const deliveries: string[] = [];
  if (r.events.length > 0) {
    steps.push(['subscribed AS (?)', [subscribedInsert(db, r.events)]]);
    deliveries.push('SELECT account_id, id FROM subscribed');
  }
  if (oneShots.length > 0) {
    steps.push(['one_shots AS (?)', [oneShotInsert(db, oneShots)]]);
    deliveries.push('SELECT account_id, id FROM one_shots');
  }
  if (actor) steps.push(['actor AS MATERIALIZED (?)', [actor]]);
  const sql = `WITH ${steps.map(([step]) => step).join(', ')}
     SELECT mem.*, ${
       deliveries.length > 0
         ? `(SELECT coalesce(json_agg(json_build_object('account_id', d.account_id, 'id', d.id)), '[]'::json) FROM (${deliveries.join(' UNION ALL ')}) d)`
         : `'[]'::json`
     } AS deliveries
       FROM mem${actor ? ' CROSS JOIN actor' : ''}`; // joined so it is evaluated: the history trigger (AFTER INSERT, at the statement's end) reads it
  // Flattened once (knex expands the nested steps); one memory's create has one text per shape (its
  // entities, webhook and actor or not: a few), so it is prepared where statements are named and
  // PostgreSQL parses and plans it once a connection (0.5 ms of its CPU a create, 10k rows).
  const flat = db.raw(sql, steps.flatMap(([, values]) => values)).toSQL();
  const stored = await runStatement<MemoryRow & { deliveries: unknown }>(db, flat.sql, flat.bindings as unknown[], { prepare: r.memories.length === 1 });
  if (linksAfter) await linksInsert(db, r.entities, 'entities');
  const byId = new Map(stored.map(({ deliveries: _d, ...row }) => [row.id, row as MemoryRow]));
  const recorded = (stored[0]?.deliveries ?? []) as Array<{ account_id: string; id: string }>;
  return {
    rows: r.memories.map((m) => byId.get(m.id)!),
    deliveries: (typeof recorded === 'string' ? (JSON.parse(recorded) as typeof recorded) : recorded).map((d) => ({ accountId: d.account_id, deliveryId: d.id })),
  };
}

export const newMemoriesRepository = {
  /**
   * Stores new memories with everything a create records, in ONE statement (atomic by itself, and
   * also right inside a transaction): the rows; their entities, upserted per account, and links;
   * their agents marked active (to the minute); the outbox deliveries of `events`; and, given an
   * `actor`, the writer their first version names. A create then costs one round trip after its
   * embed, however much it records. Rows come back in the order given.
   * On Citus every step names its accounts as values, so each runs on their shards alone (one
   * account: one worker, one transaction there, no two-phase commit); the links follow in a second
   * statement of the same transaction, and the actor is named by SET LOCAL in it (set_config does
   * not reach the shards).
   */
  async insertWithRecords(db: Knex, r: NewMemoryRecords, actor?: VersionActor): Promise<Stored> {
    if (r.memories.length === 0) return { rows: [], deliveries: [] };
    if (!(await onCitusCoordinator(db))) {
      const named = actor ? await memoryVersionsRepository.actorInStatement(db, actor) : null;
      return insertStatement(db, r, named?.subquery ?? null, false);
    }
    const linksAfter = r.entities.length > 0;
    if (!actor && !linksAfter) return insertStatement(db, r, null, false);
    return inTransaction(db, async (trx) => {
      if (actor) await memoryVersionsRepository.setActor(trx, actor);
      return insertStatement(trx, r, null, linksAfter);
    });
  },
};

/**
 * The links of new memories to their entities: from `ent` (the create's entity upsert, a CTE of
 * the same statement) or from the `entities` table (a statement after that upsert, in its
 * transaction: on Citus, an INSERT … SELECT on the account's shard alone).
 */
function linksInsert(db: Knex, entities: FoundEntity[], from: 'ent' | 'entities'): Knex.Raw {
  const accounts = [...new Set(entities.map((e) => e.accountId))];
  return db.raw(
    `INSERT INTO entity_memory_links (account_id, entity_id, memory_id, relationship, relevance_score)
     SELECT x.account_id, e.id, x.memory_id, 'mentioned_in', x.relevance
       FROM jsonb_to_recordset(?::jsonb) AS x(account_id uuid, memory_id uuid, name text, entity_type text, relevance real)
       JOIN ${from} e ON e.account_id = x.account_id AND e.entity_type = x.entity_type AND lower(e.name) = lower(x.name)
      ${from === 'entities' ? 'WHERE e.account_id = ANY (?::uuid[]) AND e.deleted_at IS NULL' : ''}
     ON CONFLICT (account_id, entity_id, memory_id, relationship) DO NOTHING`,
    [
      JSON.stringify(entities.map((e) => ({ account_id: e.accountId, memory_id: e.memoryId, name: e.name, entity_type: e.entityType, relevance: e.relevance }))),
      ...(from === 'entities' ? [accounts] : []),
    ],
  );
}

/** `fn` in `db`'s transaction, or in a new one. */
function inTransaction<T>(db: Knex, fn: (trx: Knex) => Promise<T>): Promise<T> {
  return (db as { isTransaction?: boolean }).isTransaction ? fn(db) : db.transaction(fn);
}

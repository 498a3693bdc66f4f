import type { Knex } from 'knex';
import { EMBEDDED_FIELDS } from '@ams/vocabulary';
import { isUniqueViolation } from '../db-errors';
import { HNSW_BUILD_OPTIONS } from '../vector-column';

/** The tables holding a vector per row, and the text each row's vector embeds. */
export const VECTOR_TABLES = ['memories', 'decisions', 'patterns'] as const;
export type VectorTable = (typeof VECTOR_TABLES)[number];

/** The text each row's vector embeds, as SQL: the columns EMBEDDED_FIELDS names, joined by a newline as embeddedText joins them. */
const embeddedTextSql = (table: VectorTable): string => EMBEDDED_FIELDS[table].join(` || E'\\n' || `);

/** Rows that carry a vector at all: live, and for memories embedded (pending ones go to the worker). */
const LIVE: Record<VectorTable, string> = {
  memories: `deleted_at IS NULL AND embedding_status = 'ready'`,
  decisions: 'deleted_at IS NULL',
  patterns: 'deleted_at IS NULL',
};

type ReembedStatus = 'running' | 'switched' | 'completed' | 'failed';

export interface ReembedRunRow {
  id: string;
  from_model: string;
  target_model: string;
  dimensions: number;
  status: ReembedStatus;
  total: number;
  done: number;
  cursor: ReembedCursor | null;
  rate_per_second: number | null;
  error: string | null;
  owner: string | null;
  heartbeat_at: Date | null;
  started_at: Date;
  updated_at: Date;
  switched_at: Date | null;
  finished_at: Date | null;
}

export interface ReembedCursor {
  table: VectorTable;
  account_id: string;
  id: string;
}

export interface EmbeddingState {
  active_model: string;
  dimensions: number;
}

/** One row to embed: `version` (xmin) fences the write against a concurrent change of the row. */
export interface ReembedItem {
  account_id: string;
  id: string;
  text: string;
  version: string;
}

const OPEN: ReembedStatus[] = ['running', 'switched'];

/**
 * Rows without a vector of `target`: in the staging column while a run is `running`, in the
 * active one once `switched` (what a write racing the switch left behind).
 */
function missing(table: VectorTable, phase: 'stage' | 'sweep', target: string): { sql: string; bindings: string[] } {
  return phase === 'stage'
    ? {
        sql: `${LIVE[table]} AND embedding IS NOT NULL AND embedding_model IS DISTINCT FROM ? AND embedding_next_model IS DISTINCT FROM ?`,
        bindings: [target, target],
      }
    : { sql: `${LIVE[table]} AND (embedding IS NULL OR embedding_model IS DISTINCT FROM ?)`, bindings: [target] };
}

/** Rows an UPDATE … RETURNING 1 touched (the same on both backends). */
const touched = async (q: Promise<unknown>) => ((await q) as { rows: unknown[] }).rows.length;

export const embeddingStateRepository = {
  async get(db: Knex): Promise<EmbeddingState | undefined> {
    return db('embedding_state').select('active_model', 'dimensions').first();
  },

  /** The active model, recording `fallback` as it when none is recorded yet (a first re-embed run). */
  async ensure(db: Knex, fallback: EmbeddingState): Promise<EmbeddingState> {
    await db('embedding_state').insert(fallback).onConflict('singleton').ignore();
    return (await embeddingStateRepository.get(db))!;
  },
};

export const reembedRepository = {
  /** The run in progress (running or switched), if any. */
  async open(db: Knex): Promise<ReembedRunRow | undefined> {
    return db('reembed_runs').whereIn('status', OPEN).first();
  },

  async latest(db: Knex): Promise<ReembedRunRow | undefined> {
    return db('reembed_runs').orderBy('started_at', 'desc').first();
  },

  /** Rows the run has to embed, over every vector table. */
  async countMissing(db: Knex, target: string, phase: 'stage' | 'sweep'): Promise<number> {
    let total = 0;
    for (const table of VECTOR_TABLES) {
      const m = missing(table, phase, target);
      const { rows } = await db.raw(`SELECT count(*)::int AS n FROM ${table} WHERE ${m.sql}`, m.bindings);
      total += (rows as Array<{ n: number }>)[0]!.n;
    }
    return total;
  },

  /** A new run; undefined when one is already open (one open run at most: a unique index). */
  async create(db: Knex, run: { fromModel: string; targetModel: string; dimensions: number; total: number }): Promise<ReembedRunRow | undefined> {
    try {
      const [row] = await db('reembed_runs')
        .insert({ from_model: run.fromModel, target_model: run.targetModel, dimensions: run.dimensions, total: run.total })
        .returning('*');
      return row as ReembedRunRow;
    } catch (err) {
      if (isUniqueViolation(err, 'reembed_runs_one_open_key')) return undefined;
      throw err;
    }
  },

  /**
   * Takes (or keeps) the run for `owner`: free, already ours, or its owner silent for `leaseMs`
   * (a dead worker). False when another live worker holds it.
   */
  async lease(db: Knex, runId: string, owner: string, leaseMs: number): Promise<boolean> {
    const n = await db('reembed_runs')
      .where('id', runId)
      .whereIn('status', OPEN)
      .where((w) =>
        w.whereNull('owner').orWhere('owner', owner).orWhereRaw(`heartbeat_at < now() - make_interval(secs => ?)`, [leaseMs / 1000]),
      )
      .update({ owner, heartbeat_at: db.fn.now() });
    return n > 0;
  },

  /** Progress after a batch: counts, cursor, measured rate (and the heartbeat that keeps the lease). False: the lease is gone. */
  async progress(
    db: Knex,
    runId: string,
    owner: string,
    p: { done: number; cursor: ReembedCursor | null; ratePerSecond?: number; growTotal?: number },
  ): Promise<boolean> {
    const set: Record<string, unknown> = {
      done: db.raw('done + ?', [p.done]),
      total: db.raw('total + ?', [p.growTotal ?? 0]),
      cursor: p.cursor ? JSON.stringify(p.cursor) : null,
      heartbeat_at: db.fn.now(),
      updated_at: db.fn.now(),
    };
    if (p.ratePerSecond !== undefined) set.rate_per_second = p.ratePerSecond;
    return (await db('reembed_runs').where({ id: runId, owner }).whereIn('status', OPEN).update(set)) > 0;
  },

  /** At a pass's start: what is done plus what is left (writes during the run add work). */
  async resetTotal(db: Knex, runId: string, left: number): Promise<void> {
    await db('reembed_runs').where('id', runId).update({ total: db.raw('done + ?', [left]) });
  },

  /** Rows still lacking a `target` vector, in keyset order after `cursor` (null: from the start). */
  async nextBatch(db: Knex, table: VectorTable, target: string, phase: 'stage' | 'sweep', after: ReembedCursor | null, limit: number): Promise<ReembedItem[]> {
    const m = missing(table, phase, target);
    const bindings: string[] = [...m.bindings];
    let sql = `SELECT account_id, id, ${embeddedTextSql(table)} AS text, xmin::text AS version FROM ${table} WHERE ${m.sql}`;
    if (after && after.table === table) {
      sql += ' AND (account_id, id) > (?, ?)';
      bindings.push(after.account_id, after.id);
    }
    const { rows } = await db.raw(`${sql} ORDER BY account_id, id LIMIT ?`, [...bindings, limit]);
    return rows as ReembedItem[];
  },

  /**
   * Stores target vectors: staged (`embedding_next`) while running, active (`embedding`) once
   * switched. A row changed since it was read (xmin moved) is left for the next pass.
   */
  async store(db: Knex, table: VectorTable, phase: 'stage' | 'sweep', model: string, items: Array<{ item: ReembedItem; vector: string }>): Promise<number> {
    if (items.length === 0) return 0;
    const [vectorColumn, modelColumn] = phase === 'stage' ? ['embedding_next', 'embedding_next_model'] : ['embedding', 'embedding_model'];
    const payload = JSON.stringify(items.map(({ item, vector }) => ({ account_id: item.account_id, id: item.id, version: item.version, embedding: vector })));
    return touched(
      db.raw(
        `UPDATE ${table} AS t SET ${vectorColumn} = v.embedding::vector, ${modelColumn} = ?
           FROM jsonb_to_recordset(?::jsonb) AS v(account_id uuid, id uuid, version text, embedding text)
          WHERE t.account_id = ANY (?::uuid[]) AND t.account_id = v.account_id AND t.id = v.id AND t.xmin::text = v.version
      RETURNING 1`,
        // The accounts as values too: on Citus the update then reaches only their shards.
        [model, payload, [...new Set(items.map(({ item }) => item.account_id))]],
      ),
    );
  },

  /** Whether `<table>.embedding_next` has the HNSW index for `dims`; makes it when not. */
  async ensureStagingIndex(db: Knex, table: VectorTable, dims: number): Promise<void> {
    const { rows } = await db.raw(`SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ? AND indexdef LIKE ?`, [
      table,
      `%((embedding_next)::vector(${dims}))%`,
    ]);
    if ((rows as unknown[]).length > 0) return;
    // Unique by time: the other column may already hold this size's index under the plain name.
    const name = `${table}_vector_${dims}_${Date.now().toString(36)}_idx`;
    await db.raw(
      `CREATE INDEX ${name} ON ${table} USING hnsw ((embedding_next::vector(${dims})) vector_cosine_ops) ${HNSW_BUILD_OPTIONS} WHERE vector_dims(embedding_next) = ${dims}`,
    );
  },

  /**
   * The switch, in one transaction: each table's staging and active columns trade names (their
   * indexes follow them), the active model becomes the target, the run moves to `switched`.
   * A catalog change, so O(1) whatever the table's size; ALTER's lock waits at most `lockTimeoutMs`
   * for searches in flight (then throws, and the run tries again).
   */
  async switchModels(db: Knex, run: ReembedRunRow, owner: string, lockTimeoutMs: number): Promise<boolean> {
    return db.transaction(async (trx) => {
      const n = await trx('reembed_runs').where({ id: run.id, owner, status: 'running' }).update({ status: 'switched', switched_at: trx.fn.now(), cursor: null, updated_at: trx.fn.now() });
      if (n === 0) return false;
      await trx.raw(`SET LOCAL lock_timeout = ${Math.max(1, Math.floor(lockTimeoutMs))}`);
      for (const table of VECTOR_TABLES) {
        for (const [a, b] of [['embedding', 'embedding_next'], ['embedding_model', 'embedding_next_model']]) {
          await trx.raw(`ALTER TABLE ${table} RENAME COLUMN ${a} TO ${a}_swap`);
          await trx.raw(`ALTER TABLE ${table} RENAME COLUMN ${b} TO ${a}`);
          await trx.raw(`ALTER TABLE ${table} RENAME COLUMN ${a}_swap TO ${b}`);
        }
      }
      await trx('embedding_state').update({ active_model: run.target_model, dimensions: run.dimensions, updated_at: trx.fn.now() });
      return true;
    });
  },

  /** Drops up to `limit` old-model vectors from the staging columns after a switch; the count dropped. */
  async clearStaged(db: Knex, table: VectorTable, limit: number): Promise<number> {
    return touched(
      db.raw(
        `UPDATE ${table} SET embedding_next = NULL, embedding_next_model = NULL
          WHERE (account_id, id) IN (SELECT account_id, id FROM ${table} WHERE embedding_next IS NOT NULL LIMIT ?)
      RETURNING 1`,
        [limit],
      ),
    );
  },

  async finish(db: Knex, runId: string, status: 'completed' | 'failed', error?: string): Promise<void> {
    await db('reembed_runs')
      .where('id', runId)
      .update({ status, error: error ?? null, finished_at: db.fn.now(), updated_at: db.fn.now(), owner: null });
  },
};

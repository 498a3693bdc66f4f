import type { Knex } from 'knex';
import { prepared } from '../prepared-statements';
import { MEMORY_COLUMNS, MemoryRow } from './memories.repository';

export interface SearchEvent {
  accountId: string;
  agentId: string | null;
  query: string;
  searchMode: string;
  responseMs: number;
}

export interface EntityLinkRef {
  type: string;
  value: string;
  confidence: number;
}

export type HydratedHit = MemoryRow & { score: number; entities: EntityLinkRef[] };

/** One fused hit's 1-based rank and score in each list that held it. */
export interface FusionDetail {
  ranks: Record<string, number>;
  scores: Record<string, number>;
}

export const searchEventsRepository = {
  async record(
    db: Knex,
    e: {
      accountId: string;
      agentId: string | null;
      query: string;
      searchMode: string;
      resultCount: number;
      avgScore: number | null;
      responseMs: number;
    },
  ): Promise<void> {
    await db('search_events').insert({
      account_id: e.accountId,
      agent_id: e.agentId,
      query: e.query,
      search_mode: e.searchMode,
      result_count: e.resultCount,
      avg_score: e.avgScore,
      response_ms: e.responseMs,
    });
  },

  /**
   * The live memories of `hits` in their order, each with its score and linked live entities
   * (best first), and the search recorded (result count and mean score of the rows found) — one
   * statement, so a search costs one round trip after ranking and is recorded before it answers.
   */
  async recordWithResults(db: Knex, e: SearchEvent, hits: Array<{ id: string; score: number }>): Promise<HydratedHit[]> {
    const ranked = db.raw('SELECT *, NULL::jsonb AS detail FROM unnest(?::uuid[], ?::float8[]) WITH ORDINALITY AS h(id, score, ord)', [
      hits.map((h) => h.id),
      hits.map((h) => h.score),
    ]);
    const { rows } = await hydrateAndRecord(db, e, ranked, db.raw('true'), { prepare: true });
    return rows.map(presentHit);
  },

  /**
   * recordWithResults over `nearest` (an index-ordered top-k query of id and score, k rows at most)
   * in the same statement: a semantic search's ranking, rows and record in one round trip. The rows
   * kept score at least `minScore`, best first (ties by id). When `nearest` yields fewer than k
   * rows (a small or heavily filtered set the exact scan must answer), nothing is recorded and the
   * result is null.
   */
  async recordNearest(db: Knex, e: SearchEvent, nearest: Knex.QueryBuilder, k: number, minScore: number): Promise<{ hits: HydratedHit[]; evaluated: number } | null> {
    const ranked = db.raw('SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS ord, NULL::jsonb AS detail FROM (?) AS knn', [nearest]);
    const { rows, evaluated, recorded } = await hydrateAndRecord(db, e, ranked, db.raw('(SELECT count(*) FROM ranked) >= ?', [k]), { minScore });
    return recorded ? { hits: rows.map(presentHit), evaluated } : null;
  },

  /**
   * A hybrid search's fusion, rows and record in one statement: the index's top `depth` (`nearest`,
   * as in recordNearest) is the semantic list, fused with the `others` lists (best first) by
   * reciprocal rank fusion as reciprocalRankFusion does it (Σ 1 / (rrfK + rank), scaled so first
   * in every list that found anything scores 1; ties by id); the `limit` best from `minScore` on
   * are hydrated. `details`: each hit's ranks and scores per list. Null, with nothing recorded,
   * when the index yields fewer than `depth` rows (the caller scans exactly and fuses itself).
   */
  async recordFused(
    db: Knex,
    e: SearchEvent,
    nearest: Knex.QueryBuilder,
    depth: number,
    others: Record<string, Array<{ id: string; score: number }>>,
    opts: { rrfK: number; limit: number; minScore: number },
  ): Promise<{ hits: HydratedHit[]; evaluated: number; details: Map<string, FusionDetail> } | null> {
    const listed = Object.entries(others).flatMap(([list, hits]) => hits.map((h, i) => ({ list, id: h.id, rank: i + 1, score: h.score })));
    const ranked = db.raw(
      `WITH knn AS (?), listed AS (
         SELECT 'semantic'::text AS list, id, row_number() OVER (ORDER BY score DESC, id)::int AS rank, score::float8 AS score FROM knn
         UNION ALL
         SELECT * FROM unnest(?::text[], ?::uuid[], ?::int[], ?::float8[])
       ), fused AS (
         SELECT id, sum(1 / (?::float8 + rank)) * (? + 1) / (SELECT count(DISTINCT list) FROM listed) AS score,
                jsonb_build_object('ranks', jsonb_object_agg(list, rank), 'scores', jsonb_object_agg(list, score)) AS detail
           FROM listed GROUP BY id
       )
       SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS ord, detail FROM fused`,
      [nearest, listed.map((l) => l.list), listed.map((l) => l.id), listed.map((l) => l.rank), listed.map((l) => l.score), opts.rrfK, opts.rrfK],
    );
    // The index's rows are counted where the statement can see them: through the semantic ranks.
    const indexFilled = db.raw(`(SELECT count(*) FROM ranked WHERE detail->'ranks'->'semantic' IS NOT NULL) >= ?`, [depth]);
    const { rows, evaluated, recorded } = await hydrateAndRecord(db, e, ranked, indexFilled, { minScore: opts.minScore, limit: opts.limit });
    if (!recorded) return null;
    return { hits: rows.map(presentHit), evaluated, details: new Map(rows.map((r) => [r.id, r.detail as FusionDetail])) };
  },

  /** Recall activity and search analytics of one agent (index search_events_account_agent_idx). */
  async summaryForAgent(db: Knex, accountId: string, agentId: string) {
    const totals = await db('search_events')
      .where({ account_id: accountId, agent_id: agentId })
      .first(
        db.raw('count(*) AS total_searches'),
        db.raw('avg(avg_score) AS avg_score'),
        db.raw('avg(result_count) AS avg_results'),
        db.raw('avg(response_ms) AS avg_response_ms'),
      );
    const top: Array<{ query: string }> = await db('search_events')
      .where({ account_id: accountId, agent_id: agentId })
      .groupBy('query')
      .select('query')
      .orderByRaw('count(*) DESC, max(created_at) DESC')
      .limit(10);
    return {
      totalSearches: Number(totals?.total_searches ?? 0),
      avgScore: Number(totals?.avg_score ?? 0),
      avgResults: Number(totals?.avg_results ?? 0),
      avgResponseMs: Number(totals?.avg_response_ms ?? 0),
      topQueries: top.map((t) => t.query),
    };
  },
};

type Row = HydratedHit & { ord: unknown; entities: unknown; detail: unknown; evaluated?: unknown; recorded?: unknown };

/**
 * The statement behind recordWithResults, recordNearest and recordFused: `ranked` (id, score, ord,
 * detail) hydrated, kept from minScore on (the `limit` best), and recorded when `recordIf` holds.
 * The record commits without waiting for its WAL flush (synchronous_commit off for this
 * statement's transaction only): the answer does not wait on a disk flush for analytics; a
 * database crash may lose the last fraction of a second of search events, never memories.
 * `evaluated`: how many rows `ranked` held; `recorded`: whether `recordIf` held.
 * `prepare`: only for a ranking given as ids (recordWithResults). With an index scan inside, a
 * generic plan would not know the filters' selectivity: PostgreSQL chose one after five runs and
 * a search of an agent holding 1 % of the rows went from 14 to 34 ms p50 (100k rows).
 */
async function hydrateAndRecord(
  db: Knex,
  e: SearchEvent,
  ranked: Knex.Raw,
  recordIf: Knex.Raw,
  opts: { minScore?: number; limit?: number; prepare?: boolean } = {},
) {
  const minScore = opts.minScore ?? -Infinity;
  const statement = db.raw(
    `WITH ranked AS (?), hits AS (
       SELECT * FROM ranked WHERE score >= ? ORDER BY ord LIMIT ?
     ), found AS (
       SELECT ${MEMORY_COLUMNS.join(', ')}, hits.score, hits.ord, hits.detail,
              (SELECT coalesce(json_agg(json_build_object('type', e.entity_type, 'value', e.name, 'confidence', l.relevance_score)
                                        ORDER BY l.relevance_score DESC, e.name), '[]'::json)
                 FROM entity_memory_links l JOIN entities e ON e.account_id = l.account_id AND e.id = l.entity_id
                WHERE l.account_id = memories.account_id AND l.memory_id = memories.id AND e.deleted_at IS NULL) AS entities
         FROM hits JOIN memories ON memories.account_id = ?::uuid AND memories.id = hits.id AND memories.deleted_at IS NULL
     ), recorded AS (
       INSERT INTO search_events (account_id, agent_id, query, search_mode, result_count, avg_score, response_ms)
       SELECT ?::uuid, ?::uuid, ?::text, ?::text, count(*), avg(score), ?::real
         FROM found CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
       HAVING ?
       RETURNING 1
     )
     SELECT found.*, (SELECT count(*) FROM ranked) AS evaluated, EXISTS (SELECT 1 FROM recorded) AS recorded
       FROM (SELECT 1) AS one LEFT JOIN found ON true
      ORDER BY found.ord`,
    [ranked, Number.isFinite(minScore) ? minScore : -1e308, opts.limit ?? null, e.accountId, e.accountId, e.agentId, e.query, e.searchMode, e.responseMs, recordIf],
  );
  const { rows } = await (opts.prepare ? prepared(statement) : statement);
  const all = rows as Row[];
  return { rows: all.filter((r) => r.id !== null), evaluated: Number(all[0]?.evaluated ?? 0), recorded: all[0]?.recorded === true };
}

function presentHit({ ord: _o, evaluated: _e, recorded: _r, detail: _d, ...r }: Row): HydratedHit {
  return {
    ...r,
    score: Number(r.score),
    entities: (typeof r.entities === 'string' ? JSON.parse(r.entities) : r.entities) as EntityLinkRef[],
  };
}

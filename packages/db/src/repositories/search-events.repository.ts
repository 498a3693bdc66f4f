import type { Knex } from 'knex';
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
   * The statement commits without waiting for its WAL flush (synchronous_commit off for this
   * transaction only): the answer does not wait on a disk flush for analytics; a database crash
   * may lose the last fraction of a second of search events, never memories.
   */
  async recordWithResults(db: Knex, e: SearchEvent, hits: Array<{ id: string; score: number }>): Promise<HydratedHit[]> {
    const { rows } = await db.raw(
      `WITH hits AS (
         SELECT * FROM unnest(?::uuid[], ?::float8[]) WITH ORDINALITY AS h(id, score, ord)
       ), found AS (
         SELECT ${MEMORY_COLUMNS.join(', ')}, hits.score, hits.ord,
                (SELECT coalesce(json_agg(json_build_object('type', e.entity_type, 'value', e.name, 'confidence', l.relevance_score)
                                          ORDER BY l.relevance_score DESC, e.name), '[]'::json)
                   FROM entity_memory_links l JOIN entities e ON e.account_id = l.account_id AND e.id = l.entity_id
                  WHERE l.account_id = memories.account_id AND l.memory_id = memories.id AND e.deleted_at IS NULL) AS entities
           FROM hits JOIN memories ON memories.account_id = ?::uuid AND memories.id = hits.id AND memories.deleted_at IS NULL
       ), recorded AS (
         INSERT INTO search_events (account_id, agent_id, query, search_mode, result_count, avg_score, response_ms)
         SELECT ?::uuid, ?::uuid, ?::text, ?::text, count(*), avg(score), ?::real
           FROM found CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
       )
       SELECT * FROM found ORDER BY ord`,
      [hits.map((h) => h.id), hits.map((h) => h.score), e.accountId, e.accountId, e.agentId, e.query, e.searchMode, e.responseMs],
    );
    return (rows as Array<HydratedHit & { ord: unknown; entities: unknown }>).map(({ ord: _o, ...r }) => ({
      ...r,
      score: Number(r.score),
      entities: (typeof r.entities === 'string' ? JSON.parse(r.entities) : r.entities) as EntityLinkRef[],
    }));
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

import type { Knex } from 'knex';

/** What a search's record holds: who searched, for what, how it went. */
export interface SearchEvent {
  accountId: string;
  agentId: string | null;
  query: string;
  searchMode: string;
  resultCount: number;
  /** Mean score of the results; null when there were none. */
  avgScore: number | null;
  responseMs: number;
  /** What the search returned, best first (re-tiering's recall history). */
  memoryIds?: string[];
}

export const searchEventsRepository = {
  /**
   * Records searches in one statement, on the primary (never inside a search's read); see
   * SearchRecorder. It commits without waiting for its WAL flush (synchronous_commit off for this
   * statement's own transaction): a database crash may lose the last fraction of a second of
   * search analytics, never memories.
   */
  async recordMany(db: Knex, events: SearchEvent[]): Promise<void> {
    if (events.length === 0) return;
    const row = '(?::uuid, ?::uuid, ?::text, ?::text, ?::int, ?::float8, ?::real, ?::uuid[])';
    await db.raw(
      `INSERT INTO search_events (account_id, agent_id, query, search_mode, result_count, avg_score, response_ms, memory_ids)
       SELECT v.* FROM (VALUES ${events.map(() => row).join(', ')}) AS v, (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`,
      events.flatMap((e) => [e.accountId, e.agentId, e.query, e.searchMode, e.resultCount, e.avgScore, e.responseMs, e.memoryIds?.length ? e.memoryIds : null]),
    );
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

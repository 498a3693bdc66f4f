import type { Knex } from 'knex';

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

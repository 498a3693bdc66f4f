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
};

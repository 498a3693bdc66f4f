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

/** This process's search records still being written (each settles, never rejects). */
const writing = new Set<Promise<void>>();

export const searchEventsRepository = {
  /**
   * Records one search, on the primary (never inside the search's read). It commits without
   * waiting for its WAL flush (synchronous_commit off for this statement's own transaction): a
   * database crash may lose the last fraction of a second of search analytics, never memories.
   */
  async record(db: Knex, e: SearchEvent): Promise<void> {
    await db.raw(
      `INSERT INTO search_events (account_id, agent_id, query, search_mode, result_count, avg_score, response_ms, memory_ids)
       SELECT ?::uuid, ?::uuid, ?::text, ?::text, ?::int, ?::float8, ?::real, ?::uuid[]
         FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`,
      [e.accountId, e.agentId, e.query, e.searchMode, e.resultCount, e.avgScore, e.responseMs, e.memoryIds?.length ? e.memoryIds : null],
    );
  },

  /**
   * Writes the record once the current turn is done (the search's answer goes out first) and
   * returns the write, which the caller must handle. Until it settles, written() waits for it: a
   * read of search_events in this process after the search answered still sees the search.
   */
  recordAfterAnswer(db: Knex, e: SearchEvent): Promise<void> {
    const write = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.record(db, e));
    const settled = write.then(
      () => undefined,
      () => undefined,
    );
    writing.add(settled);
    void settled.then(() => writing.delete(settled));
    return write;
  },

  /** Resolves once every record this process began writing so far is written (or failed). */
  async written(): Promise<void> {
    await Promise.all([...writing]);
  },

  /** Recall activity and search analytics of one agent (index search_events_account_agent_idx); includes this process's searches still being recorded. */
  async summaryForAgent(db: Knex, accountId: string, agentId: string) {
    await this.written();
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

import type { Knex } from 'knex';
import { onCitusCoordinator } from './citus';
import { detachedFromRequest } from './read-cancellation';

/** A word in COMMON or more of the searchable rows is common (keyword-ranking.ts). */
export const COMMON = 500;

/** Up to COMMON of `rows` holding the word t.lex (of the statement around it). */
export const holdingWord = (db: Knex, rows: (db: Knex) => Knex.QueryBuilder) =>
  rows(db).whereRaw('memories.content_tsv @@ quote_literal(t.lex)::tsquery').select(db.raw('1')).limit(COMMON);

export interface CommonWordsLimits {
  /** How long a word found common is taken as common; then it is counted again. */
  rememberMs: number;
  /** Sets of searchable rows remembered; the least recently used go first. */
  maxScopes: number;
  /** Words counted per warm-up statement, each statement cut off at warmUpTimeoutMs. */
  warmUpChunk: number;
  warmUpTimeoutMs: number;
  /** Between the end of one warm-up and the start of the next (one runs at a time). */
  warmUpSpacingMs: number;
}

const COMMON_WORDS_LIMITS: CommonWordsLimits = {
  rememberMs: 10 * 60_000,
  maxScopes: 1_000,
  warmUpChunk: 64,
  warmUpTimeoutMs: 1_000,
  warmUpSpacingMs: 10_000,
};

/**
 * Keyword ranking's memory of common words, one per process (made with the API's context, closed
 * with it): which words were found in COMMON or more rows of a set of searchable rows (keyed by
 * the SQL that selects them), so a common word is not counted again in every search (counting
 * one costs ~3 ms at 100k rows). Bounded by its limits: at most maxScopes sets, each word
 * forgotten rememberMs after it was counted; the warm-up below runs one at a time, at most one per
 * warmUpSpacingMs, and has no timer of its own. Losing it only costs time, never a result.
 */
export class CommonWords {
  private readonly scopes = new Map<string, Map<string, number>>();
  /** When each set of rows was last warmed up. */
  private readonly warmed = new Map<string, number>();
  private warmUpBusyUntil = 0;
  private warming: Promise<void> = Promise.resolve();
  private closed = false;

  /** `db`: the process's own database (not a request's), for the background warm-up. */
  constructor(
    private readonly db: Knex,
    private readonly limits: CommonWordsLimits = COMMON_WORDS_LIMITS,
  ) {}

  /** The words of `scope` known to be common now. */
  known(scope: string): string[] {
    const words = this.scopes.get(scope);
    if (!words) return [];
    this.scopes.delete(scope);
    this.scopes.set(scope, words);
    const now = Date.now();
    for (const [lex, until] of words) if (until <= now) words.delete(lex);
    return [...words.keys()];
  }

  remember(scope: string, common: string[]): void {
    if (common.length === 0) return;
    const words = this.scopes.get(scope) ?? new Map<string, number>();
    for (const lex of common) words.set(lex, Date.now() + this.limits.rememberMs);
    this.scopes.set(scope, words);
    while (this.scopes.size > this.limits.maxScopes) this.scopes.delete(this.scopes.keys().next().value!);
  }

  /**
   * Counts, in the background, the words that ANALYZE's statistics of content_tsv (most common
   * elements, over the whole table) put in COMMON or more rows, among `rows` (the counts are those
   * rows' own: the statistics only choose which words to count), and remembers the common ones.
   * PostgreSQL only: PGlite runs one statement at a time, so a background count would hold every
   * request behind it. A set of rows at most once per rememberMs; it stops at the first statement
   * cut off (a narrow set of rows, where common words' rows are mostly others', learns little).
   * A failure only means the words are counted when asked for.
   */
  warmUp(rows: (db: Knex) => Knex.QueryBuilder, scope: string): void {
    const db = this.db;
    if (this.closed || db.client.config.client !== 'pg' || Date.now() < this.warmUpBusyUntil || !this.claimWarmUp(scope)) return;
    this.warmUpBusyUntil = Number.POSITIVE_INFINITY;
    const { warmUpChunk, warmUpTimeoutMs, warmUpSpacingMs } = this.limits;
    this.warming = detachedFromRequest(async () => {
      const words = await this.likelyCommon();
      for (let i = 0; i < words.length && !this.closed; i += warmUpChunk) {
        const counted = await db.transaction(async (trx) => {
          await trx.raw(`SET LOCAL statement_timeout = ${warmUpTimeoutMs}`);
          const { rows: found } = await trx.raw(`SELECT t.lex, d.df FROM unnest(?::text[]) AS t(lex) CROSS JOIN LATERAL (SELECT count(*)::int AS df FROM (?) AS s) AS d`, [
            words.slice(i, i + warmUpChunk),
            holdingWord(trx, rows),
          ]);
          return found as Array<{ lex: string; df: number }>;
        });
        this.remember(scope, counted.filter((t) => Number(t.df) >= COMMON).map((t) => t.lex));
      }
    })
      .catch(() => undefined)
      .finally(() => (this.warmUpBusyUntil = Date.now() + warmUpSpacingMs));
  }

  /**
   * The words ANALYZE's statistics of content_tsv put in COMMON or more rows, most common first.
   * On Citus the coordinator's pg_stats has no rows for a distributed table: each shard's
   * statistics are read on its worker (run_command_on_shards, a background read across shards)
   * and the words' estimated rows summed over the shards (an account's rows sit on one shard, but
   * the statistics only choose which words to count).
   */
  private async likelyCommon(): Promise<string[]> {
    const db = this.db;
    if (!(await onCitusCoordinator(db))) {
      const { rows } = await db.raw(
        `SELECT m.lex FROM pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS m(lex, freq)
          WHERE s.schemaname = current_schema() AND s.tablename = 'memories' AND s.attname = 'content_tsv' AND m.lex IS NOT NULL
            AND m.freq * (SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = 'memories'::regclass) >= ?
          ORDER BY m.freq DESC`,
        [COMMON],
      );
      return (rows as Array<{ lex: string }>).map((w) => w.lex);
    }
    // Run on each shard, %s its name: its common elements with their estimated rows.
    const onShard = `SELECT coalesce(json_agg(json_build_array(m.lex, m.freq * greatest(c.reltuples, 0))), '[]')
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_stats s ON s.schemaname = n.nspname AND s.tablename = c.relname AND s.attname = 'content_tsv',
             unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS m(lex, freq)
       WHERE c.oid = '%s'::regclass AND m.lex IS NOT NULL`;
    const { rows } = await db.raw(`SELECT result FROM run_command_on_shards('memories', ?) WHERE success`, [onShard]);
    const estimated = new Map<string, number>();
    for (const { result } of rows as Array<{ result: string }>) for (const [lex, n] of JSON.parse(result) as Array<[string, number]>) estimated.set(lex, (estimated.get(lex) ?? 0) + Number(n));
    return [...estimated].filter(([, n]) => n >= COMMON).sort((a, b) => b[1] - a[1]).map(([lex]) => lex);
  }

  /** Resolves once the warm-up under way, if any, has ended. */
  settled(): Promise<void> {
    return this.warming;
  }

  /** No warm-up starts from now on; resolves once the one running, if any, has ended (before its database closes). */
  async close(): Promise<void> {
    this.closed = true;
    await this.warming;
  }

  /** Whether `scope` is due a warm-up; if so, it counts as warmed from now. */
  private claimWarmUp(scope: string): boolean {
    const now = Date.now();
    if ((this.warmed.get(scope) ?? 0) > now - this.limits.rememberMs) return false;
    this.warmed.delete(scope);
    this.warmed.set(scope, now);
    while (this.warmed.size > this.limits.maxScopes) this.warmed.delete(this.warmed.keys().next().value!);
    return true;
  }
}

import type { Knex } from 'knex';
import { COMMON, CommonWords, holdingWord } from './common-words';
import { byScore, type Neighbour } from './nearest';
import { prepared } from './prepared-statements';

/**
 * Keyword search ranked BM25-style over PostgreSQL full text (works the same on PGlite): any query
 * word may match (OR), rare words weigh more (idf from the word's document frequency in the
 * caller's searchable rows), shorter memories a little more (BM25 length normalisation, k1 1.2,
 * b 0.75, each word counted once). Two statements, both on the GIN index on content_tsv:
 *   1. the query's lexemes (PostgreSQL's parser and stemmer) with their document frequency,
 *      counted up to COMMON rows each (a LATERAL join: as a subquery expression the planner
 *      would not use the GIN index for it);
 *   2. candidates = rows holding any rare lexeme, scored (every query word counts), top k; only when
 *      those are fewer than k, rows holding any rare lexeme or any two common ones (a third
 *      statement, cheap by then: the rare words' rows were few). A keyword search reads its rows
 *      in this statement too (bm25Ranked's `read`).
 * A word in COMMON or more rows only adds to the score of rows found otherwise: scoring every row
 * that holds one common word is what makes a plain OR query slow, and such rows rank low anyway.
 * Rows found only through pairs of common words were most of the candidates, and scoring them took
 * most of the time (npm run bench, 100k: keyword p95 19 → 9 ms, recall@10 0.414 → 0.426).
 * Counting a common word is statement 1's costly part (~3 ms a word at 100k rows: its rows are read
 * until COMMON are found), and a common word stays common: which words were common for the same
 * rows is remembered (`words`, the process's CommonWords), and those are not counted again. The first
 * search of a set of rows also starts, in the background, the count of the words ANALYZE saw in
 * COMMON or more rows of the whole table (CommonWords.warmUp), so a common word is seldom counted in a request
 * even the first time it is asked for (a settled 100k store of the bench's corpus: hybrid p50 over
 * semantic +6.4 → +4.7 ms).
 * Rare words are always counted, so a word just stored is found at once.
 * A query using web-search syntax ("a phrase", -word, or) keeps websearch_to_tsquery's meaning
 * as the filter and is ranked the same way.
 */
const MAX_TERMS = 12;
/**
 * Query words looked up (statement 1) at most: counting is the keyword leg's cost per word, so a
 * query of more distinct words counts the MAX_LOOKED_UP that the statistics of content_tsv deem
 * rarest (not among ANALYZE's most common elements, or least frequent there; the query's order
 * among equals), and ranks by the MAX_TERMS rarest of those. docs/api.md, "Bounds on a search".
 */
const MAX_LOOKED_UP = 64;
/** Pairs of the rarest common words (3 words: 3 pairs) widen the candidates; more pairs cost more than they found (npm run bench, 100k). */
const MAX_COMMON_PAIRED = 3;
const K1 = 1.2;
const B = 0.75;

const WEB_SEARCH_SYNTAX = /"|(^|\s)-\S|\sor\s/i;

interface Term {
  tq: string;
  df: number;
  n: number;
}

export async function bm25Candidates(db: Knex, words: CommonWords, rows: (db: Knex) => Knex.QueryBuilder, text: string, k: number): Promise<Neighbour[]> {
  return bm25Ranked(db, words, rows, text, k, async (ranked) => (await prepared(db, ranked)).rows as Neighbour[]);
}

/**
 * bm25Candidates' ranking, read by `read`: given the ranking statement (id, score 0..1, best first),
 * it runs it, or a statement around it that reads more in the same round trip (the keyword search's
 * rows: one router hop on Citus instead of two). Best first; equal scores by id.
 */
export async function bm25Ranked<R extends Neighbour>(
  db: Knex,
  words: CommonWords,
  rows: (db: Knex) => Knex.QueryBuilder,
  text: string,
  k: number,
  read: (ranked: Knex.Raw) => Promise<R[]>,
): Promise<R[]> {
  // Past MAX_LOOKED_UP distinct words the syntax is dropped: an alternative of every word would make every row a candidate.
  const syntax = WEB_SEARCH_SYNTAX.test(text) && distinctWords(text) <= MAX_LOOKED_UP;
  // Excluded words (-word) are not terms to rank by.
  const positive = syntax ? text.replace(/(^|\s)-\S+/g, ' ') : text;
  const holding = holdingWord(db, rows);
  const scope = JSON.stringify(rows(db).toSQL().toNative());
  words.warmUp(rows, scope);
  const known = words.known(scope);
  // A word known to be common is not counted (its df is COMMON either way: counts stop there).
  // A long query's words are chosen first, in a statement of their own: it reads only the catalog,
  // which Citus cannot join with a distributed table in one statement.
  const chosen = mayExceedLookUps(positive) ? await rarestLexemes(db, positive, known) : undefined;
  const { rows: found } = await prepared(
    db,
    db.raw(
      `SELECT quote_literal(t.lex)::tsquery::text AS tq, CASE WHEN t.lex = ANY (?::text[]) THEN ? ELSE d.df END AS df,
              (SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = 'memories'::regclass)::float8 AS n
         FROM ${chosen ? 'unnest(?::text[])' : ALL_LEXEMES} AS t(lex)
         CROSS JOIN LATERAL (SELECT count(*)::int AS df FROM (?) AS s WHERE NOT (t.lex = ANY (?::text[]))) AS d`,
      [known, COMMON, chosen ?? positive, holding, known],
    ),
  );
  const counted = (found as Term[]).map((t) => ({ lex: lexemeOf(t.tq), df: Number(t.df) })).filter((t) => !known.includes(t.lex));
  words.remember(scope, counted.filter((t) => t.df >= COMMON).map((t) => t.lex));
  const terms = (found as Term[])
    .map((t) => ({ ...t, df: Number(t.df), n: Number(t.n) }))
    .filter((t) => t.df > 0)
    .sort((a, b) => a.df - b.df)
    .slice(0, MAX_TERMS);
  if (terms.length === 0) return [];
  // reltuples is an estimate (and unknown before the first ANALYZE): never below what was counted.
  const n = Math.max(1, terms[0]!.n, ...terms.map((t) => t.df));
  const idf = terms.map((t) => Math.log(1 + (n - t.df + 0.5) / (t.df + 0.5)));
  const rank = async (filter: Knex.Raw): Promise<R[]> => {
    const candidates = rows(db)
      .whereRaw('memories.content_tsv @@ ?', [filter])
      .select('memories.id', 'memories.created_at', 'memories.content_tsv', db.raw('length(memories.content_tsv)::float8 AS len'));
    // The terms are bindings (a join, not an expression per term): one statement text for any
    // number of terms, so its prepared form serves every query. The score is 0..1 for the API
    // (a rank, not a probability): s / (s + 1), order kept.
    const ranked = await read(
      db.raw(
        `SELECT id, bm25 / (bm25 + 1) AS score
           FROM (SELECT id, created_at, idf_sum * ${K1 + 1} / (1 + ${K1} * (${1 - B} + ${B} * len / greatest(avg(len) OVER (), 1::float8))) AS bm25
                   FROM (SELECT c.id, c.created_at, c.len, coalesce(sum(w.idf), 0) AS idf_sum
                           FROM (?) AS c LEFT JOIN unnest(?::tsquery[], ?::float8[]) AS w(tq, idf) ON c.content_tsv @@ w.tq
                          GROUP BY c.id, c.created_at, c.len) AS s
                  ORDER BY bm25 DESC, created_at DESC, id
                  LIMIT ?) AS top`,
        [candidates, terms.map((t) => t.tq), idf, k],
      ),
    );
    return byScore(ranked);
  };
  if (syntax) return rank(db.raw(`websearch_to_tsquery('english', ?)`, [text]));
  const rare = terms.filter((t) => t.df < COMMON);
  // The rows holding a rare word first: when they fill k, rows found only through common words
  // are not scored (they are most of the candidates, and on the bench's corpus ranked worse).
  if (rare.length > 0 && rare.length < terms.length) {
    const found = await rank(db.raw('?::tsquery', [rare.map((t) => t.tq).join(' | ')]));
    if (found.length >= k) return found;
  }
  return rank(db.raw('?::tsquery', [candidateQuery(terms)]));
}

/** The query's lexemes, for a query of few words (the limit only holds when the parser splits its words further: a-b is a-b, a and b). */
const ALL_LEXEMES = `(SELECT lex FROM unnest(tsvector_to_array(to_tsvector('english', ?))) AS q(lex) LIMIT ${MAX_LOOKED_UP})`;

/**
 * The query's MAX_LOOKED_UP lexemes likely rarest: by their frequency among ANALYZE's most common
 * elements of content_tsv (absent: rarer than any there; on Citus the coordinator has none, so all
 * are), then in the order the query gives them (its first words first). Of the words likely common
 * (known common, or estimated in COMMON or more rows) only the MAX_TERMS least frequent: ranking
 * needs no more of them, and counting one through a narrow filter reads every row holding it.
 */
const RAREST_LEXEMES = `(SELECT lex FROM (
     SELECT q.lex, row_number() OVER (PARTITION BY c.common ORDER BY c.freq, q.positions[1]) AS nth, c.common, c.freq, q.positions[1] AS pos
       FROM unnest(to_tsvector('english', ?)) AS q(lex, positions, weights)
       LEFT JOIN (SELECT m.lex, max(m.freq) AS freq
                    FROM pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS m(lex, freq)
                   WHERE s.schemaname = current_schema() AND s.tablename = 'memories' AND s.attname = 'content_tsv' AND m.lex IS NOT NULL
                   GROUP BY m.lex) AS e ON e.lex = q.lex
       CROSS JOIN LATERAL (SELECT coalesce(e.freq, 0) AS freq,
                                  q.lex = ANY (?::text[]) OR coalesce(e.freq, 0) * (SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = 'memories'::regclass) >= ${COMMON} AS common) AS c
     ) AS ranked
    WHERE NOT common OR nth <= ${MAX_TERMS}
    ORDER BY common, freq, pos
    LIMIT ${MAX_LOOKED_UP})`;

/** The MAX_LOOKED_UP lexemes of `text` likely rarest (RAREST_LEXEMES); `known`: the words known to be common. */
async function rarestLexemes(db: Knex, text: string, known: string[]): Promise<string[]> {
  const { rows } = await db.raw(`SELECT lex FROM ${RAREST_LEXEMES} AS t(lex)`, [text, known]);
  return (rows as Array<{ lex: string }>).map((r) => r.lex);
}

/**
 * Whether `text` may have more than MAX_LOOKED_UP distinct lexemes: more than a quarter as many
 * distinct words (the parser makes up to three tokens of one, `a-b`; a URL more). Typical queries
 * have far fewer, and skip the statistics' read.
 */
function mayExceedLookUps(text: string): boolean {
  return distinctWords(text) > MAX_LOOKED_UP / 4;
}

function distinctWords(text: string): number {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.length > MAX_LOOKED_UP / 4 ? new Set(words).size : words.length;
}

/** Rows holding any rare term, or any two of the (few rarest) common ones; all common: any two, else any. */
function candidateQuery(terms: Array<{ tq: string; df: number }>): string {
  const rare = terms.filter((t) => t.df < COMMON).map((t) => t.tq);
  const common = terms.filter((t) => t.df >= COMMON).slice(0, MAX_COMMON_PAIRED).map((t) => t.tq);
  const parts = [...rare];
  for (let i = 0; i < common.length; i++) for (let j = i + 1; j < common.length; j++) parts.push(`(${common[i]} & ${common[j]})`);
  if (parts.length === 0) parts.push(...common);
  return parts.join(' | ');
}

/** The lexeme of a one-lexeme tsquery's text ('word' → word). */
const lexemeOf = (tq: string) => tq.slice(1, -1).replaceAll("''", "'");

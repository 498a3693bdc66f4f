import fs from 'node:fs';
import type { Database } from '@ams/db';

export interface GeneratedStore {
  accountId: string;
  agentId: string;
  /** The embedding model the rows are marked with (the app's embedder, so searches compare them). */
  model: string;
  dimensions: number;
  count: number;
}

/** Lower-case words of the system's word list (/usr/share/dict/words), in its order. */
export function dictionaryWords(): string[] {
  return fs
    .readFileSync('/usr/share/dict/words', 'utf8')
    .split('\n')
    .filter((w) => /^[a-z]{3,}$/.test(w));
}

/**
 * `count` ready memories for one agent, made in the database itself: 12–40 words of the word list
 * each, drawn so that a few words are common and most are rare (index ~ n·u³, a long tail as in
 * prose), random vectors of the model's dimension, and a metadata object with a team of 50, a
 * number and a tag list. The HNSW index is built once after the load (as a bulk load would), then
 * the table is analyzed.
 */
export async function generateMemories(db: Database, store: Omit<GeneratedStore, 'count'>, count: number): Promise<GeneratedStore> {
  const knex = db.knex;
  const words = dictionaryWords();
  await knex.raw(`CREATE TABLE IF NOT EXISTS generated_store_words (i int PRIMARY KEY, w text NOT NULL)`);
  await knex.raw(`TRUNCATE generated_store_words`);
  await knex.raw(`INSERT INTO generated_store_words SELECT o - 1, w FROM unnest(?::text[]) WITH ORDINALITY AS u(w, o)`, [words]);
  const { rows: hnsw } = await knex.raw(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memories' AND indexdef LIKE '%USING hnsw%'`);
  for (const ix of hnsw as Array<{ indexname: string }>) await knex.raw(`DROP INDEX ${ix.indexname}`);
  const step = 20_000;
  for (let from = 0; from < count; from += step) {
    await knex.transaction(async (trx) => {
      // No history rows (a create's version) and no per-row foreign-key checks: the rows are made right here.
      await trx.raw(`SET LOCAL session_replication_role = replica`);
      await trx.raw(`SET LOCAL jit = off`);
      await trx.raw(
        `INSERT INTO memories (account_id, agent_id, content, memory_type, tier, metadata, embedding, embedding_model, embedding_status)
         SELECT ?, ?, t.content, 'fact', 'warm',
                jsonb_build_object('team', 'team-' || (g % 50), 'n', g, 'tags', jsonb_build_array('tag-' || (g % 7), 'tag-' || (g % 11))),
                (SELECT array_agg(random()::real - 0.5) FROM generate_series(1, ?) WHERE g > 0)::vector, ?, 'ready'
           FROM generate_series(?::int, ?::int) g
           CROSS JOIN LATERAL (
             SELECT string_agg((SELECT w.w FROM generated_store_words w WHERE w.i = x.i), ' ') AS content
               FROM (SELECT floor(? * power(random(), 3))::int AS i FROM generate_series(1, 12 + (g % 29)) k) x
           ) t`,
        [store.accountId, store.agentId, store.dimensions, store.model, from, Math.min(count, from + step) - 1, words.length],
      );
    });
  }
  await knex.transaction(async (trx) => {
    await trx.raw(`SET LOCAL maintenance_work_mem = '512MB'`);
    for (const ix of hnsw as Array<{ indexdef: string }>) await trx.raw(ix.indexdef);
  });
  await knex.raw('VACUUM ANALYZE memories');
  return { ...store, count };
}

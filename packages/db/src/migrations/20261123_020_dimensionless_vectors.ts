import type { Migration } from './migration';

/** The tables that store a vector per row, and the text each vector embeds (see reembed.repository). */
const VECTOR_TABLES = [
  { table: 'memories', source: ['content'] },
  { table: 'decisions', source: ['title', 'rationale'] },
  { table: 'patterns', source: ['title', 'description'] },
] as const;

/**
 * Vectors of any size (a model change), and room for a second model's vectors while a re-embed
 * runs (docs/decisions/0007-dimensionless-vectors.md):
 * - `embedding` loses its `(384)`: a dimensionless pgvector column. HNSW needs a size, so each size
 *   gets a partial expression index, `(embedding::vector(N)) … WHERE vector_dims(embedding) = N`;
 *   searches use the same expression and predicate (packages/db vector-column.ts). 384 is made here;
 *   a run makes the one its target size needs.
 * - `embedding_next` / `embedding_next_model` hold the target model's vectors during a run; the
 *   switch swaps the two column pairs in one transaction, so searches move to the new vectors at once.
 * - A content change empties `embedding_next` (a trigger: every writer, present and future), so a
 *   staged vector never outlives the text it was made from.
 */
export const dimensionlessVectors: Migration = {
  name: '20261123_020_dimensionless_vectors',
  up: [
    ...VECTOR_TABLES.flatMap(({ table, source }) => [
      `DROP INDEX ${table}_embedding_hnsw_idx`,
      `ALTER TABLE ${table} ALTER COLUMN embedding TYPE vector`,
      `ALTER TABLE ${table} ADD COLUMN embedding_next vector, ADD COLUMN embedding_next_model text`,
      `CREATE INDEX ${table}_vector_384_idx ON ${table} USING hnsw ((embedding::vector(384)) vector_cosine_ops)
         WHERE vector_dims(embedding) = 384`,
      // Names, not column numbers: the body still means "the staging column" after a switch renames them.
      `CREATE FUNCTION ${table}_clear_next_embedding() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF ${source.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(' OR ')} THEN
           NEW.embedding_next := NULL;
           NEW.embedding_next_model := NULL;
         END IF;
         RETURN NEW;
       END $$`,
      `CREATE TRIGGER ${table}_clear_next_embedding BEFORE UPDATE ON ${table}
         FOR EACH ROW EXECUTE FUNCTION ${table}_clear_next_embedding()`,
    ]),
    // The model whose vectors searches read (one row). Empty until the first re-embed run: until
    // then every process uses its configured model.
    `CREATE TABLE embedding_state (
       singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
       active_model text NOT NULL,
       dimensions integer NOT NULL,
       updated_at timestamptz NOT NULL DEFAULT now()
     )`,
    // Re-embed runs: service-wide (the model is), so operational rather than tenant data. The
    // cursor and counts make a run resumable by any worker after a crash.
    `CREATE TABLE reembed_runs (
       id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
       from_model text NOT NULL,
       target_model text NOT NULL,
       dimensions integer NOT NULL,
       status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'switched', 'completed', 'failed')),
       total integer NOT NULL DEFAULT 0,
       done integer NOT NULL DEFAULT 0,
       -- Where the pass stopped: {table, account_id, id} (keyset order); null at a pass's start.
       cursor jsonb,
       rate_per_second real,
       error text,
       owner text,
       heartbeat_at timestamptz,
       started_at timestamptz NOT NULL DEFAULT now(),
       updated_at timestamptz NOT NULL DEFAULT now(),
       switched_at timestamptz,
       finished_at timestamptz
     )`,
    `CREATE UNIQUE INDEX reembed_runs_one_open_key ON reembed_runs ((true)) WHERE status IN ('running', 'switched')`,
  ],
};

import type { Migration } from './migration';
import { onCitus } from '../citus';

/**
 * Per-account limits and the counters they are checked against (docs/operations.md, "Account limits
 * and usage"):
 * - `account_limits`: the operator's settings per account; NULL takes the configured default, 0 is
 *   unlimited. Small and read across accounts (each process caches them): a reference table on Citus.
 * - `account_usage`: what the account stores now (live memories, their vectors, their bytes: content
 *   + metadata as text + 4 bytes per vector dimension) and the storage limits in force
 *   (`max_memories`, `max_storage_bytes`: the override or the default, 0 = none; their column
 *   defaults are the configured defaults, set by each API process at start).
 *   A row trigger on memories keeps the counters for every writer (creates, updates, deletes,
 *   restores, expiry, embeddings, re-embeds, imports): the upsert of the account's row serialises
 *   concurrent writers of one account, so a create that would take the account over a limit is
 *   refused (SQLSTATE AQ001) with the exact count, and its whole statement with it. Only a write
 *   that adds a memory (create, restore) or grows its text is refused: an embedding is always stored.
 *   On Citus the trigger runs on the shard and writes the co-located shard of the same account.
 * - `account_daily_usage`: requests, searches and embeddings per account and UTC day, added to by
 *   each API process's flush (about once a second).
 */
export const accountLimitsUsage: Migration = {
  name: '20261128_080_account_limits_usage',
  up: [
    `CREATE TABLE account_limits (
       account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
       max_memories bigint CHECK (max_memories >= 0),
       max_storage_bytes bigint CHECK (max_storage_bytes >= 0),
       requests_per_minute integer CHECK (requests_per_minute >= 0),
       searches_per_day integer CHECK (searches_per_day >= 0),
       embeddings_per_day integer CHECK (embeddings_per_day >= 0),
       fair_share_weight double precision CHECK (fair_share_weight > 0),
       updated_at timestamptz NOT NULL DEFAULT now()
     )`,
    onCitus(`PERFORM create_reference_table('account_limits');`),
    `CREATE TABLE account_usage (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       memories bigint NOT NULL DEFAULT 0,
       vectors bigint NOT NULL DEFAULT 0,
       storage_bytes bigint NOT NULL DEFAULT 0,
       max_memories bigint NOT NULL DEFAULT 0,
       max_storage_bytes bigint NOT NULL DEFAULT 0,
       PRIMARY KEY (account_id)
     )`,
    onCitus(`PERFORM create_distributed_table('account_usage', 'account_id', colocate_with => 'agents');`),
    `CREATE TABLE account_daily_usage (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       day date NOT NULL,
       requests bigint NOT NULL DEFAULT 0,
       searches bigint NOT NULL DEFAULT 0,
       embeddings bigint NOT NULL DEFAULT 0,
       PRIMARY KEY (account_id, day)
     )`,
    onCitus(`PERFORM create_distributed_table('account_daily_usage', 'account_id', colocate_with => 'agents');`),
    // What one memory row takes: its text and its vectors (the live one and a re-embed's staged one).
    `CREATE FUNCTION memory_text_bytes(content text, metadata jsonb) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
       SELECT octet_length(content)::bigint + octet_length(metadata::text)
     $$`,
    `CREATE FUNCTION memory_vector_dims(embedding vector, embedding_next vector) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
       SELECT coalesce(vector_dims(embedding), 0)::bigint + coalesce(vector_dims(embedding_next), 0)
     $$`,
    `CREATE FUNCTION memory_usage_track() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE
       d_memories bigint := 0;
       d_vectors bigint := 0;
       d_text bigint := 0;
       d_vector_bytes bigint := 0;
       acct uuid;
       u record;
     BEGIN
       IF TG_OP <> 'INSERT' AND OLD.deleted_at IS NULL THEN
         d_memories := -1;
         d_vectors := -((OLD.embedding IS NOT NULL)::int + (OLD.embedding_next IS NOT NULL)::int);
         d_text := -memory_text_bytes(OLD.content, OLD.metadata);
         d_vector_bytes := -4 * memory_vector_dims(OLD.embedding, OLD.embedding_next);
       END IF;
       IF TG_OP <> 'DELETE' AND NEW.deleted_at IS NULL THEN
         d_memories := d_memories + 1;
         d_vectors := d_vectors + (NEW.embedding IS NOT NULL)::int + (NEW.embedding_next IS NOT NULL)::int;
         d_text := d_text + memory_text_bytes(NEW.content, NEW.metadata);
         d_vector_bytes := d_vector_bytes + 4 * memory_vector_dims(NEW.embedding, NEW.embedding_next);
       END IF;
       IF d_memories = 0 AND d_vectors = 0 AND d_text = 0 AND d_vector_bytes = 0 THEN
         RETURN NULL;
       END IF;
       acct := CASE WHEN TG_OP = 'DELETE' THEN OLD.account_id ELSE NEW.account_id END;
       INSERT INTO account_usage AS a (account_id, memories, vectors, storage_bytes)
       VALUES (acct, d_memories, d_vectors, d_text + d_vector_bytes)
       ON CONFLICT (account_id) DO UPDATE
         SET memories = a.memories + excluded.memories,
             vectors = a.vectors + excluded.vectors,
             storage_bytes = a.storage_bytes + excluded.storage_bytes
       RETURNING a.memories, a.storage_bytes, a.max_memories, a.max_storage_bytes INTO u;
       IF d_memories > 0 AND u.max_memories > 0 AND u.memories > u.max_memories THEN
         RAISE EXCEPTION 'Memory quota exceeded: max_memories is %, and the account stores % memories', u.max_memories, u.memories - d_memories
           USING ERRCODE = 'AQ001', DETAIL = 'max_memories';
       END IF;
       IF (d_memories > 0 OR d_text > 0) AND u.max_storage_bytes > 0 AND u.storage_bytes > u.max_storage_bytes THEN
         RAISE EXCEPTION 'Storage quota exceeded: max_storage_bytes is %, and the account stores % bytes; this write needs % more',
           u.max_storage_bytes, u.storage_bytes - d_text - d_vector_bytes, d_text + d_vector_bytes
           USING ERRCODE = 'AQ001', DETAIL = 'max_storage_bytes';
       END IF;
       RETURN NULL;
     END $$`,
    // The trigger writes only its own account's row: safe on a shard (docs/scaling.md).
    onCitus(`PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);`),
    // Only updates that can change the counts: deletion, text, or a vector's presence or size.
    `CREATE TRIGGER memories_usage_insert_delete AFTER INSERT OR DELETE ON memories
       FOR EACH ROW EXECUTE FUNCTION memory_usage_track()`,
    `CREATE TRIGGER memories_usage_update AFTER UPDATE ON memories
       FOR EACH ROW WHEN (
         (OLD.deleted_at IS NULL) IS DISTINCT FROM (NEW.deleted_at IS NULL)
         OR OLD.content IS DISTINCT FROM NEW.content
         OR OLD.metadata IS DISTINCT FROM NEW.metadata
         OR vector_dims(OLD.embedding) IS DISTINCT FROM vector_dims(NEW.embedding)
         OR vector_dims(OLD.embedding_next) IS DISTINCT FROM vector_dims(NEW.embedding_next)
       ) EXECUTE FUNCTION memory_usage_track()`,
    // The store's existing memories, counted once.
    `INSERT INTO account_usage (account_id, memories, vectors, storage_bytes)
     SELECT account_id, count(*),
            sum((embedding IS NOT NULL)::int + (embedding_next IS NOT NULL)::int),
            sum(memory_text_bytes(content, metadata) + 4 * memory_vector_dims(embedding, embedding_next))
       FROM memories WHERE deleted_at IS NULL GROUP BY account_id`,
  ],
};

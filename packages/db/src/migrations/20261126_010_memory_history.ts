import type { Migration } from './migration';

/**
 * Every change to a memory becomes a version: `memories.version` counts them and
 * `memory_versions` keeps each one's full state, the old values of what changed, who and why.
 *
 * A trigger records them, not the services: every writer (API, embedding worker, re-embed runs,
 * sweeps, imports, and writers added later) is covered without having to remember, the version
 * is bumped under the row lock the UPDATE already holds (concurrent updates serialise and none is
 * lost), and a new column is tracked without touching this code: the state is the row as JSON less
 * the columns listed in UNTRACKED. The writer names itself for the transaction with set_config
 * ('ams.actor_key_id', 'ams.actor_agent_id', 'ams.change'; memoryVersionsRepository.setActor);
 * unnamed writes are the system's, their change inferred from what changed.
 */
export const UNTRACKED_MEMORY_COLUMNS = [
  'account_id', 'id', 'agent_id', 'version', 'created_at', 'updated_at', 'content_tsv', 'embedding',
  'embedding_status', 'embedding_error', 'embedding_attempts', 'embedding_attempts_base', 'embedding_started_at',
  'dedup_threshold', 'webhook_url', 'duplicate_of', 'client_id',
  // Re-tiering's bookkeeping (022): the tier it moves is tracked, when it moved it is not.
  'tier_moved_at',
];
const untracked = `ARRAY[${UNTRACKED_MEMORY_COLUMNS.map((c) => `'${c}'`).join(', ')}]::text[]`;

export const memoryHistory: Migration = {
  name: '20261126_010_memory_history',
  up: [
    `ALTER TABLE memories ADD COLUMN version integer NOT NULL DEFAULT 1`,
    `CREATE TABLE memory_versions (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       memory_id uuid NOT NULL,
       version integer NOT NULL,
       change text NOT NULL,
       changed_fields text[] NOT NULL,
       -- The old values of changed_fields (empty for a create); the new ones are in state.
       before jsonb NOT NULL DEFAULT '{}',
       state jsonb NOT NULL,
       actor_key_id uuid,
       actor_agent_id uuid,
       created_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (account_id, memory_id, version)
     )`,
    // The retention sweep's scan, oldest first.
    `CREATE INDEX memory_versions_created_idx ON memory_versions (created_at)`,
    // A memory's tracked state: the row less what is not the memory's own content (see UNTRACKED).
    // The vector and the tsvector are blanked first: converting them to JSON would be most of the cost.
    `CREATE FUNCTION memory_tracked_state(m memories) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
     BEGIN
       m.embedding := NULL;
       m.content_tsv := NULL;
       RETURN to_jsonb(m) - ${untracked};
     END $$`,
    `CREATE FUNCTION memory_changed_fields(old_state jsonb, new_state jsonb, reembedded boolean) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
       SELECT coalesce(array_agg(k ORDER BY k), '{}'::text[]) || CASE WHEN reembedded THEN ARRAY['embedding'] ELSE '{}'::text[] END
         FROM (SELECT jsonb_object_keys(old_state || new_state) AS k) keys
        WHERE old_state -> k IS DISTINCT FROM new_state -> k
     $$`,
    `CREATE FUNCTION memory_version_insert(m memories, kind text, fields text[], before_values jsonb, state jsonb) RETURNS void LANGUAGE sql AS $$
       INSERT INTO memory_versions (account_id, memory_id, version, change, changed_fields, before, state, actor_key_id, actor_agent_id)
       VALUES (m.account_id, m.id, m.version, coalesce(nullif(current_setting('ams.change', true), ''), kind), fields, before_values, state,
               nullif(current_setting('ams.actor_key_id', true), '')::uuid,
               nullif(current_setting('ams.actor_agent_id', true), '')::uuid)
       ON CONFLICT (account_id, memory_id, version) DO NOTHING
     $$`,
    // BEFORE UPDATE, under the row lock the UPDATE holds: a change to anything tracked is the next
    // version, recorded at once (a statement that then fails rolls it back with the row).
    `CREATE FUNCTION memory_version_update() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE
       old_state jsonb := memory_tracked_state(OLD);
       new_state jsonb := memory_tracked_state(NEW);
       fields text[] := memory_changed_fields(old_state, new_state, OLD.embedding IS DISTINCT FROM NEW.embedding);
       before_values jsonb;
     BEGIN
       NEW.version := OLD.version;
       IF cardinality(fields) = 0 THEN
         RETURN NEW;
       END IF;
       NEW.version := OLD.version + 1;
       SELECT coalesce(jsonb_object_agg(k, old_state -> k), '{}'::jsonb) INTO before_values FROM unnest(fields) AS k WHERE k <> 'embedding';
       PERFORM memory_version_insert(NEW, CASE
           WHEN OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN 'delete'
           WHEN OLD.deleted_at IS NOT NULL AND NEW.deleted_at IS NULL THEN 'restore'
           WHEN fields <@ ARRAY['embedding', 'embedding_model'] THEN CASE WHEN OLD.embedding IS NULL THEN 'embed' ELSE 're-embed' END
           ELSE 'update' END,
         fields, before_values, new_state);
       RETURN NEW;
     END $$`,
    // AFTER INSERT: only rows really stored (an INSERT ... ON CONFLICT DO NOTHING that skipped one records nothing).
    `CREATE FUNCTION memory_version_create() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE
       state jsonb := memory_tracked_state(NEW);
     BEGIN
       PERFORM memory_version_insert(NEW, 'create', ARRAY(SELECT jsonb_object_keys(state) ORDER BY 1), '{}'::jsonb, state);
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER memories_version_update BEFORE UPDATE ON memories FOR EACH ROW EXECUTE FUNCTION memory_version_update()`,
    `CREATE TRIGGER memories_version_create AFTER INSERT ON memories FOR EACH ROW EXECUTE FUNCTION memory_version_create()`,
    // Memories stored before history began: their state now is their first version.
    `INSERT INTO memory_versions (account_id, memory_id, version, change, changed_fields, state, created_at)
     SELECT m.account_id, m.id, 1, 'create', ARRAY(SELECT jsonb_object_keys(memory_tracked_state(m)) ORDER BY 1), memory_tracked_state(m), m.created_at
       FROM memories m`,
  ],
};

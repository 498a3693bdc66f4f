import type { Migration } from './migration';
import { UNTRACKED_MEMORY_COLUMNS } from './20261126_010_memory_history';

const untracked = `ARRAY[${UNTRACKED_MEMORY_COLUMNS.map((c) => `'${c}'`).join(', ')}]::text[]`;

/**
 * The history triggers (010) on Citus (docs/scaling.md): there they fire on a shard of memories,
 * whose rows are of the shard's own type (memories_102008), not `memories`, so helpers typed
 * `m memories` are not found. The helpers now take a `record` (any row type) and the version's keys
 * as values; the bodies are otherwise 010's. The version's INSERT into memory_versions from within
 * the shard is for the same account_id, so Citus runs it on the co-located shard of the same node.
 * Same behaviour on PostgreSQL and PGlite.
 */
export const memoryHistoryOnShards: Migration = {
  name: '20261126_060_memory_history_on_shards',
  up: [
    // A write already in its old trigger when the helpers below are dropped would look them up and
    // fail: writes wait the few milliseconds this takes (the lock CREATE TRIGGER would take).
    `LOCK TABLE memories IN SHARE ROW EXCLUSIVE MODE`,
    `CREATE FUNCTION memory_tracked_state_of(m record) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
     BEGIN
       m.embedding := NULL;
       m.content_tsv := NULL;
       RETURN to_jsonb(m) - ${untracked};
     END $$`,
    `CREATE FUNCTION memory_version_record(account uuid, memory uuid, v integer, kind text, fields text[], before_values jsonb, state jsonb) RETURNS void LANGUAGE sql AS $$
       INSERT INTO memory_versions (account_id, memory_id, version, change, changed_fields, before, state, actor_key_id, actor_agent_id)
       VALUES (account, memory, v, coalesce(nullif(current_setting('ams.change', true), ''), kind), fields, before_values, state,
               nullif(current_setting('ams.actor_key_id', true), '')::uuid,
               nullif(current_setting('ams.actor_agent_id', true), '')::uuid)
       ON CONFLICT (account_id, memory_id, version) DO NOTHING
     $$`,
    `CREATE OR REPLACE FUNCTION memory_version_update() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE
       old_state jsonb := memory_tracked_state_of(OLD);
       new_state jsonb := memory_tracked_state_of(NEW);
       fields text[] := memory_changed_fields(old_state, new_state, OLD.embedding IS DISTINCT FROM NEW.embedding);
       before_values jsonb;
     BEGIN
       NEW.version := OLD.version;
       IF cardinality(fields) = 0 THEN
         RETURN NEW;
       END IF;
       NEW.version := OLD.version + 1;
       SELECT coalesce(jsonb_object_agg(k, old_state -> k), '{}'::jsonb) INTO before_values FROM unnest(fields) AS k WHERE k <> 'embedding';
       PERFORM memory_version_record(NEW.account_id, NEW.id, NEW.version, CASE
           WHEN OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN 'delete'
           WHEN OLD.deleted_at IS NOT NULL AND NEW.deleted_at IS NULL THEN 'restore'
           WHEN fields <@ ARRAY['embedding', 'embedding_model'] THEN CASE WHEN OLD.embedding IS NULL THEN 'embed' ELSE 're-embed' END
           ELSE 'update' END,
         fields, before_values, new_state);
       RETURN NEW;
     END $$`,
    `CREATE OR REPLACE FUNCTION memory_version_create() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE
       state jsonb := memory_tracked_state_of(NEW);
     BEGIN
       PERFORM memory_version_record(NEW.account_id, NEW.id, NEW.version, 'create', ARRAY(SELECT jsonb_object_keys(state) ORDER BY 1), '{}'::jsonb, state);
       RETURN NULL;
     END $$`,
    `DROP FUNCTION memory_version_insert(memories, text, text[], jsonb, jsonb)`,
    `DROP FUNCTION memory_tracked_state(memories)`,
  ],
};

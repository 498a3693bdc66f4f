import { toUnixSeconds } from '@ams/core';
import type { MemoryVersionRow } from '@ams/db';
import { MEMORY_VERSION_FIELDS, type MemoryVersionField } from '@ams/vocabulary';

/** State members that are times: Unix seconds, as on the memory itself. */
const isTimeField = (k: string) => k.endsWith('_at') || k.startsWith('valid_');

/** Stored column → the memory's public member, where the two differ. */
const COLUMN_OF: Partial<Record<MemoryVersionField, string>> = { tier_pinned: 'tier_explicit' };
const PUBLIC_OF: Record<string, MemoryVersionField> = { tier_explicit: 'tier_pinned', embedding_model: 'embedding' };
const PUBLIC = new Set<string>(MEMORY_VERSION_FIELDS);

function presentValue(key: string, value: unknown): unknown {
  if (value == null) return value ?? null;
  if (isTimeField(key) && typeof value === 'string') return toUnixSeconds(value);
  // real columns come back as float4: 0.7 reads as 0.699999988.
  if (key === 'importance' && typeof value === 'number') return Math.round(value * 1e6) / 1e6;
  return value;
}

/**
 * The public names of what a version changed, in the vocabulary's order. Bookkeeping columns
 * (deleted_at, retry times, a re-embed run's next vector) are not the memory's members: the change
 * kind says a delete or restore. A create names `embedding` only when it was stored with its vector.
 */
function publicFields(row: MemoryVersionRow): MemoryVersionField[] {
  const named = new Set<string>();
  for (const column of row.changed_fields) {
    const field = PUBLIC_OF[column] ?? column;
    if (PUBLIC.has(field)) named.add(field);
  }
  if (row.change === 'create' && row.state.embedding_model == null) named.delete('embedding');
  return MEMORY_VERSION_FIELDS.filter((f) => named.has(f));
}

function pick(source: Record<string, unknown>, fields: MemoryVersionField[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const field of fields) {
    const column = COLUMN_OF[field] ?? field;
    if (column in source) picked[field] = presentValue(column, source[column]);
  }
  return picked;
}

/** One version of a memory: what changed (before and after), who changed it and when. */
export function presentMemoryVersion(row: MemoryVersionRow) {
  const fields = publicFields(row);
  return {
    object: 'memory_version' as const,
    memory_id: row.memory_id,
    version: row.version,
    change: row.change,
    changed_fields: fields,
    before: pick(row.before, fields),
    after: pick(row.state, fields),
    actor: {
      type: row.actor_key_id ? ('api_key' as const) : ('system' as const),
      key_id: row.actor_key_id,
      agent_id: row.actor_agent_id,
    },
    created_at: toUnixSeconds(row.created_at)!,
  };
}

import { toUnixSeconds } from '@ams/core';
import type { MemoryVersionRow } from '@ams/db';

/** State members that are times: Unix seconds, as on the memory itself. */
const isTimeField = (k: string) => k.endsWith('_at') || k.startsWith('valid_');

function presentValue(key: string, value: unknown): unknown {
  if (value == null) return value ?? null;
  if (isTimeField(key) && typeof value === 'string') return toUnixSeconds(value);
  // real columns come back as float4: 0.7 reads as 0.699999988.
  if (key === 'importance' && typeof value === 'number') return Math.round(value * 1e6) / 1e6;
  return value;
}

function pick(source: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => k in source).map((k) => [k, presentValue(k, source[k])]));
}

/** One version of a memory: what changed (before and after), who changed it and when. */
export function presentMemoryVersion(row: MemoryVersionRow) {
  const fields = row.changed_fields;
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

/**
 * The memory domain's words, in one place: what the database constrains, the schemas accept, the
 * classifier returns and the workers emit. A leaf: it imports nothing, so every package can use it.
 */

export const MEMORY_TYPES = ['fact', 'event', 'insight', 'task', 'preference', 'entity_reference', 'system'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const TIERS = ['hot', 'warm', 'cold'] as const;
export type Tier = (typeof TIERS)[number];

export const VISIBILITIES = ['private', 'confidential'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/**
 * What a new memory is given when its write names no visibility or importance: the create schemas'
 * defaults, and a batch or import item's (which cannot name them).
 */
export const MEMORY_DEFAULTS = { visibility: 'private', importance: 0.5 } as const satisfies { visibility: Visibility; importance: number };

export const EMBEDDING_STATUSES = ['pending', 'processing', 'ready', 'failed'] as const;
export type EmbeddingStatus = (typeof EMBEDDING_STATUSES)[number];

/** Webhook event names. */
export const EVENT_TYPES = ['memory.created', 'memory.updated', 'memory.deleted', 'embedding.completed', 'memory.expired'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * What a memory version records (GET /v1/memories/{id}/history): the trigger infers create, update,
 * delete, restore, embed and re-embed; the writers name the rest for their transaction.
 */
export const MEMORY_CHANGES = ['create', 'update', 'delete', 'restore', 'embed', 're-embed', 'expire', 'restore_version', 'import', 'supersede', 'retier'] as const;
export type MemoryChange = (typeof MEMORY_CHANGES)[number];

/**
 * The memory's fields a version names in `changed_fields`: its public members (`tier_pinned`, not the
 * column), and `embedding` when its vector changed (the vector itself is never shown).
 */
export const MEMORY_VERSION_FIELDS = [
  'content', 'metadata', 'memory_type', 'visibility', 'importance', 'tier', 'tier_pinned', 'archived', 'session_id', 'project_id',
  'expires_at', 'valid_from', 'valid_until', 'supersedes', 'superseded_by', 'embedding',
] as const;
export type MemoryVersionField = (typeof MEMORY_VERSION_FIELDS)[number];

/** A project's slug: what a write may name to create the project it refers to. */
export const PROJECT_SLUG = /^[a-z0-9-]{1,100}$/;

/** What an API key (or an OAuth grant) may do; `admin` implies every other scope. */
export const SCOPES = ['read', 'write', 'delete', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export const SEARCH_MODES = ['semantic', 'hybrid', 'keyword'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** docs/clients.md, "Search narrowing": `session` narrows to one session, `long-term` to memories outside sessions. */
export const SEARCH_SCOPES = ['session', 'long-term', 'all'] as const;
export type SearchScope = (typeof SEARCH_SCOPES)[number];

/**
 * What a row's vector embeds: these columns, in this order, joined by a newline. The one definition
 * both paths read: the services build the text in JavaScript (embeddedText) when a row is written,
 * the re-embed repository builds it in SQL from the same list when every row is embedded again.
 */
export const EMBEDDED_FIELDS = {
  memories: ['content'],
  decisions: ['title', 'rationale'],
  patterns: ['title', 'description'],
} as const;
export type EmbeddedTable = keyof typeof EMBEDDED_FIELDS;

/** The text a row of `table` embeds. */
export function embeddedText<T extends EmbeddedTable>(table: T, row: { readonly [F in (typeof EMBEDDED_FIELDS)[T][number]]: string }): string {
  const fields: readonly string[] = EMBEDDED_FIELDS[table];
  return fields.map((f) => (row as Record<string, string>)[f]).join('\n');
}

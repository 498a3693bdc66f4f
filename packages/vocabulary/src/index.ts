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

export const EMBEDDING_STATUSES = ['pending', 'processing', 'ready', 'failed'] as const;
export type EmbeddingStatus = (typeof EMBEDDING_STATUSES)[number];

/** Webhook event names. */
export const EVENT_TYPES = ['memory.created', 'memory.updated', 'memory.deleted', 'embedding.completed', 'memory.expired'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const SEARCH_MODES = ['semantic', 'hybrid', 'keyword'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** docs/clients.md, "Search narrowing": `session` narrows to one session, `long-term` to memories outside sessions. */
export const SEARCH_SCOPES = ['session', 'long-term', 'all'] as const;
export type SearchScope = (typeof SEARCH_SCOPES)[number];

import type { Cursor, MetadataCondition } from '@ams/db';
import type { EmbeddingStatus, MemoryType, SearchMode, SearchScope, Tier, Visibility } from '@ams/vocabulary';

/**
 * What the memory domain takes, already validated (and defaulted) by the caller: the route schemas
 * type their bodies with these, never the other way round.
 */
export interface CreateMemoryInput {
  content: string;
  /** A UUID or a name (docs/api.md, "Agents by id or name"). */
  agent_id?: string;
  metadata: Record<string, unknown>;
  memory_type?: MemoryType;
  session_id?: string;
  project?: string;
  project_id?: string;
  importance: number;
  tier?: Tier;
  visibility: Visibility;
  deduplicate: boolean;
  dedup_threshold: number;
  /** true: always; false: never; null: when the content looks entity-rich. */
  auto_extract_entities: boolean | null;
  /** ttl_seconds is turned into expires_at at the edge. null: never (despite the agent's default); absent: the agent's default. */
  expires_at?: Date | null;
}

export interface CreateMemoryV2Input extends CreateMemoryInput {
  /** One-shot HTTPS URL notified when the embedding is ready. */
  webhook_url?: string;
}

/** A batch item: the content and placement of a create, and an idempotency key. */
export type BatchItemInput = Pick<CreateMemoryInput, 'content' | 'agent_id' | 'metadata' | 'session_id' | 'expires_at'> & { client_id?: string };

export interface BatchInput {
  memories: BatchItemInput[];
  parallel_embeddings: boolean;
}

export interface PatchMemoryInput {
  content?: string;
  metadata?: Record<string, unknown>;
  importance?: number;
  tier?: Tier;
  memory_type?: MemoryType;
  visibility?: Visibility;
  archived?: boolean;
  /** null: never expires (ttl_seconds is turned into expires_at at the edge). */
  expires_at?: Date | null;
}

export interface ListMemoriesInput {
  agent_id?: string;
  memory_type?: MemoryType;
  // Beyond the spec, for the console.
  tier?: Tier;
  session_id?: string;
  project_id?: string;
  archived?: boolean;
  visibility?: Visibility;
  embedding_status?: EmbeddingStatus;
  include_expired?: boolean;
  /** Only memories expiring before this ("what expires soon"). */
  expires_before?: Date;
  limit: number;
  offset: number;
  cursor?: Cursor;
}

export interface SearchInput {
  query: string;
  agent_id?: string;
  search_mode: SearchMode;
  limit: number;
  min_score: number;
  /** Compiled at the edge from the request's metadata_filter. */
  metadata_filter?: MetadataCondition[];
  tier?: Tier;
  min_importance?: number;
  include_confidential: boolean;
  include_archived: boolean;
  compress: boolean;
  max_context_tokens?: number;
  debug: boolean;
  /** The search narrowing of docs/clients.md: a project slug, a session (any string; a non-UUID matches nothing), a scope. */
  project?: string;
  session_id?: string;
  scope?: SearchScope;
  /** Expired memories too (audits). */
  include_expired?: boolean;
}

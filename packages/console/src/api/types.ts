// The public API's resources as the console reads them (docs/api.md; openapi.json is the complete reference).

import type { MemoryChange, Scope, Tier } from '@ams/vocabulary';

export type { Scope };
type EmbeddingStatus = 'pending' | 'processing' | 'ready' | 'failed';
export { MEMORY_TYPES, SCOPES, TIERS } from '@ams/vocabulary';

export interface ListPage<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
  total_count: number;
}

export interface CurrentKey {
  id: string;
  scopes: Scope[];
  agent_id: string | null;
}

export interface Memory {
  id: string;
  content: string;
  agent_id: string;
  metadata: Record<string, unknown>;
  entities: Array<{ type: string; value: string; confidence: number }>;
  memory_type: string;
  visibility?: 'private' | 'confidential';
  importance: number;
  tier: Tier;
  archived: boolean;
  session_id?: string | null;
  project_id?: string | null;
  created_at: number;
  updated_at: number;
  /** How many versions it has had (GET /v1/memories/{id}/history). */
  version?: number;
  /** Unix seconds; null: never expires. */
  expires_at?: number | null;
  // Time-aware recall and re-tiering (full memories always; search results and lists only when set).
  valid_from?: number | null;
  valid_until?: number | null;
  supersedes?: string | null;
  superseded_by?: string | null;
  tier_pinned?: boolean;
}

/** One version of a memory: what changed, before and after, who and when. */
export interface MemoryVersion {
  version: number;
  change: MemoryChange;
  changed_fields: string[];
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  actor: { type: 'api_key' | 'system'; key_id: string | null; agent_id: string | null };
  created_at: number;
}

export interface TierMove {
  id: string;
  memory_id: string;
  from: Tier;
  to: Tier;
  reason: 'recalled' | 'unused';
  moved_at: number;
}

export interface RetieringSettings {
  enabled: boolean;
  promote_recalls: number;
  promote_window_days: number;
  demote_after_days: number;
  interval_seconds: number;
  last_run_at: string | null;
  last_run_moved: number | null;
}

export interface MemoryStatus {
  id: string;
  status: EmbeddingStatus;
  error: string | null;
  duplicate_of: string | null;
  model?: string | null;
}

export interface ScoreBreakdown {
  mode: string;
  semantic?: number;
  keyword?: number;
  rrf?: number;
  ranks?: Partial<Record<'semantic' | 'keyword' | 'graph', number>>;
  scores?: Partial<Record<'semantic' | 'keyword' | 'graph', number>>;
  /** The score before recency weighting (with recency_half_life). */
  base_score?: number;
  factors?: { vector: number | null; keyword: number | null; graph: number | null; recency: number | null; importance?: number };
}

export interface SearchResponse {
  query: string;
  data: Array<{ memory: Memory; score: number; score_breakdown?: ScoreBreakdown }>;
  meta: { recalled_count: number; total_evaluated: number; threshold: number; top_scores: number[] };
}

export interface Agent {
  id: string;
  name: string;
  description: string | null;
  memory_count: number;
  session_count: number;
  project_count: number;
  last_active_at: string | null;
  created_at: string;
}

export interface AgentStats {
  agent_id: string;
  total_memories: number;
  memories_this_week: number;
  memories_this_month: number;
  active_sessions: number;
  entity_count: number;
  tier_breakdown: Record<Tier, number>;
  last_active: string | null;
  recall_activity: { total_searches: number; avg_score: number; avg_results: number };
  search_analytics: { top_queries: string[]; avg_response_ms: number };
}

export interface Session {
  id: string;
  agent_id: string | null;
  external_id: string | null;
  project: string | null;
  status: 'active' | 'ended';
  title: string | null;
  summary: string | null;
  memory_count: number;
  started_at: string;
  ended_at: string | null;
  memories?: Array<{ id: string; content: string; created_at: number }>;
}

export interface Entity {
  id: string;
  name: string;
  entity_type: string;
  memory_count: number;
  relationship_count: number;
  created_at: string;
}

export interface EntityGraph {
  entity: Entity;
  memories: Array<{ memory_id: string; agent_id: string; content_preview: string; relationship: string; relevance_score: number; created_at: string }>;
  neighbours: Array<{ id: string; name: string; entity_type: string; shared_memories: number }>;
}

export interface Project {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  stack: Record<string, unknown>;
  repo_url: string | null;
  memory_count: number;
  created_at: string;
}

export interface ProjectContext {
  project: { id: string; slug: string; name: string };
  memories: Array<{ id: string; content: string; memory_type: string; importance: number; created_at: number }>;
  decisions: Array<{ id: string; title: string; status: string }>;
  patterns: Array<{ id: string; title: string; category: string | null }>;
}

export interface Decision {
  id: string;
  title: string;
  rationale: string;
  alternatives: string | null;
  status: 'active' | 'superseded' | 'reverted' | 'experimental';
  superseded_by: string | null;
  project_slug: string | null;
  agent_id: string | null;
  tags: string[];
  created_at: string;
}

export interface Pattern {
  id: string;
  title: string;
  description: string;
  scope: 'global' | 'project';
  category: string | null;
  tags: string[];
  example_code?: string | null;
  source_project_slug: string | null;
  adoption_count: number;
  created_at: string;
}

export interface Health {
  status: string;
  version: string;
  mode?: string;
  database: string;
  redis: string;
  embedding?: { provider: string; model: string; dimensions: number };
}

export interface IngestionStatus {
  memories: Record<EmbeddingStatus, number>;
  backlog: { pending: number; processing: number };
  rate_per_second: number | null;
  batches_last_minute: number;
  estimated_drain_seconds: number | null;
  embedder: { provider: string; model: string };
}

export interface Webhook {
  id: string;
  url: string;
  event_types: string[];
  enabled: boolean;
  disabled_reason?: string | null;
  description: string | null;
  has_secret: boolean;
  created_at: string;
}

export interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivering' | 'delivered' | 'failed' | string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  response_excerpt: string | null;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  created_at: string;
}

export interface OAuthGrant {
  id: string;
  client_id: string;
  client_name: string | null;
  redirect_hosts: string[];
  scopes: Scope[];
  agent_id: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface ApiKeyRecord {
  id: string;
  name: string;
  key_prefix?: string;
  scopes: Scope[];
  agent_id: string | null;
  expires_at: string | null;
  last_used_at?: string | null;
  revoked_at?: string | null;
  created_at: string;
}

/** GET /v1/usage: what the account stores and did, each against its limit (null: unlimited). */
export interface AccountUsage {
  account_id: string;
  day: string;
  month: string;
  memories: { used: number; limit: number | null };
  storage_bytes: { used: number; limit: number | null };
  vectors: { used: number };
  requests: { today: number; this_month: number; limit_per_minute: number | null };
  searches: { today: number; this_month: number; limit_per_day: number | null };
  embeddings: { today: number; this_month: number; limit_per_day: number | null };
  fair_share_weight: number;
}

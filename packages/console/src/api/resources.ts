// The API's resources as the console reads them, each derived from the OpenAPI document through
// the generated client's `paths` (npm run openapi): a field the console reads is one the document
// promises, and a change to a route's document shows here as a type error.
import type { Ok } from '@agent-memory/client';

export type { Scope } from '@ams/vocabulary';
export { MEMORY_TYPES, SCOPES, TIERS } from '@ams/vocabulary';

/** One item of a list's page. */
type Item<T extends { data: unknown[] }> = T['data'][number];

export type CurrentKey = Ok<'/v1/auth/key', 'get', 200>;
export type Health = Ok<'/v1/health', 'get', 200>;
export type IngestionStatus = Ok<'/v1/ingestion', 'get', 200>;

export type MemoryPage = Ok<'/v1/memories', 'get', 200>;
export type MemorySummary = Item<MemoryPage>;
export type Memory = Ok<'/v1/memories/{id}', 'get', 200>;
export type MemoryStatus = Ok<'/v2/memories/{id}/status', 'get', 200>;
export type MemoryVersionPage = Ok<'/v1/memories/{id}/history', 'get', 200>;
export type MemoryVersion = Item<MemoryVersionPage>;
export type SearchResponse = Ok<'/v1/memories/search', 'post', 200>;
export type ScoreBreakdown = NonNullable<Item<SearchResponse>['score_breakdown']>;

export type RetieringSettings = Ok<'/v1/retiering', 'get', 200>;
export type TierMovePage = Ok<'/v1/retiering/moves', 'get', 200>;

export type AgentPage = Ok<'/v1/agents', 'get', 200>;
export type Agent = Ok<'/v1/agents/{id}', 'get', 200>;
export type AgentStats = Ok<'/v1/agents/{id}/stats', 'get', 200>;
export type SessionPage = Ok<'/v1/sessions', 'get', 200>;
export type Session = Ok<'/v1/sessions/{id}', 'get', 200>;
export type ProjectPage = Ok<'/v1/projects', 'get', 200>;
export type Project = Ok<'/v1/projects/{id}', 'get', 200>;
export type ProjectContext = Ok<'/v1/projects/{slug}/context', 'get', 200>;
export type EntityPage = Ok<'/v1/entities', 'get', 200>;
export type EntityGraph = Ok<'/v1/entities/{id}/graph', 'get', 200>;
export type DecisionPage = Ok<'/v1/decisions', 'get', 200>;
export type Decision = Ok<'/v1/decisions/{id}', 'get', 200>;
export type PatternPage = Ok<'/v1/patterns', 'get', 200>;
export type Pattern = Ok<'/v1/patterns/{id}', 'get', 200>;

export type Webhooks = Ok<'/v1/webhooks', 'get', 200>;
export type DeliveryPage = Ok<'/v1/webhooks/{id}/deliveries', 'get', 200>;
export type ApiKeyPage = Ok<'/v1/api-keys', 'get', 200>;
export type NewApiKey = Ok<'/v1/api-keys', 'post', 201>;
export type OAuthGrantPage = Ok<'/v1/oauth/grants', 'get', 200>;
export type AccountUsage = Ok<'/v1/usage', 'get', 200>;

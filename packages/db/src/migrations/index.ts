import type { Migration } from './migration';
import { accountsAndKeys } from './20261122_001_accounts_and_keys';
import { projectsAndSessions } from './20261122_002_projects_sessions';
import { memoriesAndEntities } from './20261122_003_memories_entities';
import { decisionsAndPatterns } from './20261122_004_decisions_patterns';
import { webhooksAndSearchEvents } from './20261122_005_webhooks_search_events';
import { embeddingQueue } from './20261123_006_embedding_queue';
import { projectRelationships } from './20261123_007_project_relationships';
import { agentClientKeys } from './20261123_008_agent_client_keys';
import { webhookSecretSealing } from './20261123_013_webhook_secret_sealing';
import { dimensionlessVectors } from './20261123_020_dimensionless_vectors';
import { searchGinNoPendingList } from './20261123_024_search_gin_no_pending_list';
import { hnswLighterGraph } from './20261124_025_hnsw_lighter_graph';
import { importJobs } from './20261125_026_import_jobs';
import { projectRegistration } from './20261125_027_project_registration';
import { implicitProjectsUnregistered } from './20261125_028_implicit_projects_unregistered';
import { memoryHistory } from './20261126_010_memory_history';
import { memoryExpiry } from './20261126_011_memory_expiry';
import { memoryValidity } from './20261126_020_memory_validity';
import { searchEventHits } from './20261126_021_search_event_hits';
import { retiering } from './20261126_022_retiering';
import { citusDistribution } from './20261126_030_citus_distribution';
import { memoryHistoryOnShards } from './20261126_060_memory_history_on_shards';
import { agentDefaultExpiryFunction } from './20261126_061_agent_default_expiry_function';
import { historySkipsBookkeeping } from './20261128_070_history_skips_bookkeeping';
import { oauth } from './20261128_071_oauth';
import { liveAgentFunction } from './20261128_072_live_agent_function';
import { accountLimitsUsage } from './20261128_080_account_limits_usage';

/** Listed explicitly (not globbed) so tsx, jest and a bundled build all see the same set, in order. */
export const MIGRATIONS: readonly Migration[] = [
  accountsAndKeys,
  projectsAndSessions,
  memoriesAndEntities,
  decisionsAndPatterns,
  webhooksAndSearchEvents,
  embeddingQueue,
  projectRelationships,
  agentClientKeys,
  webhookSecretSealing,
  dimensionlessVectors,
  searchGinNoPendingList,
  hnswLighterGraph,
  importJobs,
  projectRegistration,
  implicitProjectsUnregistered,
  memoryHistory,
  memoryExpiry,
  memoryValidity,
  searchEventHits,
  retiering,
  citusDistribution,
  memoryHistoryOnShards,
  agentDefaultExpiryFunction,
  historySkipsBookkeeping,
  oauth,
  liveAgentFunction,
  accountLimitsUsage,
];
export type { Migration };

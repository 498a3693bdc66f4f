import { agentsOpenApi } from '../routes/agents/agents.openapi';
import { apiKeysOpenApi } from '../routes/api-keys/api-keys.openapi';
import { oauthGrantsOpenApi } from '../routes/oauth/oauth-grants.openapi';
import { authOpenApi } from '../routes/auth/auth.openapi';
import { compatOpenApi } from '../routes/compat/compat.openapi';
import { embedOpenApi } from '../routes/embed/embed.openapi';
import { entityGraphOpenApi } from '../routes/entity-graph/entity-graph.openapi';
import { memoryImportanceOpenApi } from '../routes/memory-importance/memory-importance.openapi';
import { memoryHistoryOpenApi } from '../routes/memory-history/memory-history.openapi';
import { patternSuggestionsOpenApi } from '../routes/pattern-suggestions/pattern-suggestions.openapi';
import { projectRelationshipsOpenApi } from '../routes/project-relationships/project-relationships.openapi';
import { quotaOpenApi } from '../routes/quota/quota.openapi';
import { usageOpenApi } from '../routes/usage/usage.openapi';
import { accountLimitsOpenApi } from '../routes/account-limits/account-limits.openapi';
import { contextOpenApi } from '../routes/context/context.openapi';
import { decisionsOpenApi } from '../routes/decisions/decisions.openapi';
import { entitiesOpenApi } from '../routes/entities/entities.openapi';
import { healthOpenApi } from '../routes/health/health.openapi';
import { memoriesOpenApi } from '../routes/memories/memories.openapi';
import { patternsOpenApi } from '../routes/patterns/patterns.openapi';
import { projectsOpenApi } from '../routes/projects/projects.openapi';
import { sessionsOpenApi } from '../routes/sessions/sessions.openapi';
import { webhooksOpenApi } from '../routes/webhooks/webhooks.openapi';
import { consoleOpenApi } from '../routes/console/console.openapi';
import { currentKeyOpenApi } from '../routes/auth/current-key.openapi';
import { ingestionOpenApi } from '../routes/ingestion/ingestion.openapi';
import { exportOpenApi } from '../routes/export/export.openapi';
import { importOpenApi } from '../routes/import/import.openapi';
import { metricsOpenApi } from '../routes/metrics/metrics.openapi';
import { reembedOpenApi } from '../routes/reembed/reembed.openapi';
import { retieringOpenApi } from '../routes/retiering/retiering.openapi';
import { mcpOpenApi } from '../mcp/mcp.router';
import { discoveryOpenApi } from './openapi.router';
import type { RouteDocs } from './route-docs';

/** Every resource's route docs; a new resource adds its <resource>.openapi.ts here. */
export const ROUTE_DOCS: RouteDocs = {
  ...discoveryOpenApi,
  ...healthOpenApi,
  ...authOpenApi,
  ...apiKeysOpenApi,
  ...oauthGrantsOpenApi,
  ...agentsOpenApi,
  ...memoriesOpenApi,
  ...entitiesOpenApi,
  ...sessionsOpenApi,
  ...projectsOpenApi,
  ...decisionsOpenApi,
  ...patternsOpenApi,
  ...webhooksOpenApi,
  ...contextOpenApi,
  ...compatOpenApi,
  ...memoryImportanceOpenApi,
  ...memoryHistoryOpenApi,
  ...entityGraphOpenApi,
  ...patternSuggestionsOpenApi,
  ...projectRelationshipsOpenApi,
  ...quotaOpenApi,
  ...usageOpenApi,
  ...accountLimitsOpenApi,
  ...embedOpenApi,
  ...consoleOpenApi,
  ...currentKeyOpenApi,
  ...ingestionOpenApi,
  ...exportOpenApi,
  ...importOpenApi,
  ...metricsOpenApi,
  ...reembedOpenApi,
  ...retieringOpenApi,
  ...mcpOpenApi,
};

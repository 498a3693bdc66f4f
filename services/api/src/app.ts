import express, { type Express } from 'express';
import type { AppContext } from './context';
import { identifyCaller, requireAuth } from './middleware/authenticate';
import { backpressure, LoadGauge } from './middleware/backpressure';
import { errorHandler, notFoundRoute } from './middleware/error-handler';
import { jsonBody } from './middleware/json-body';
import { answerOptions } from './middleware/options';
import { accountUsage } from './middleware/account-usage';
import { accountRateLimit, apiRateLimit, registerRateLimit } from './middleware/rate-limit';
import { requestId } from './middleware/request-id';
import { requestLogger, requestLogs } from './middleware/request-logger';
import { requestMetrics } from './middleware/request-metrics';
import { limitHeaderCount, requireHostHeader } from './middleware/request-headers';
import { fenceWrites, routeRead } from './middleware/route-reads';
import { replicaMetrics } from './lib/replica-metrics';
import { safeUrl } from './middleware/safe-input';
import { mcpRouter } from './mcp/mcp.router';
import { ROUTE_DOCS } from './openapi/all-route-docs';
import { openApiRouter } from './openapi/openapi.router';
import { agentsRouter } from './routes/agents/agents.router';
import { apiKeysRouter } from './routes/api-keys/api-keys.router';
import { authRouter } from './routes/auth/auth.router';
import { currentKeyRouter } from './routes/auth/current-key.router';
import { compatRouter } from './routes/compat/compat.router';
import { consoleRouter } from './routes/console/console.router';
import { contextRouter } from './routes/context/context.router';
import { decisionsRouter } from './routes/decisions/decisions.router';
import { embedRouter } from './routes/embed/embed.router';
import { entityGraphRouter } from './routes/entity-graph/entity-graph.router';
import { entitiesRouter } from './routes/entities/entities.router';
import { exportRouter } from './routes/export/export.router';
import { healthRouter } from './routes/health/health.router';
import { importRouter } from './routes/import/import.router';
import { ingestionRouter } from './routes/ingestion/ingestion.router';
import { memoriesRouter } from './routes/memories/memories.router';
import { metricsRouter } from './routes/metrics/metrics.router';
import { reembedRouter } from './routes/reembed/reembed.router';
import { retieringRouter } from './routes/retiering/retiering.router';
import { memoriesV2Router } from './routes/memories/memories-v2.router';
import { memoryImportanceRouter } from './routes/memory-importance/memory-importance.router';
import { memoryHistoryRouter } from './routes/memory-history/memory-history.router';
import { patternSuggestionsRouter } from './routes/pattern-suggestions/pattern-suggestions.router';
import { patternsRouter } from './routes/patterns/patterns.router';
import { projectRelationshipsRouter } from './routes/project-relationships/project-relationships.router';
import { projectsRouter } from './routes/projects/projects.router';
import { quotaRouter } from './routes/quota/quota.router';
import { usageRouter } from './routes/usage/usage.router';
import { accountLimitsRouter } from './routes/account-limits/account-limits.router';
import { sessionsRouter } from './routes/sessions/sessions.router';
import { webhooksRouter } from './routes/webhooks/webhooks.router';
import { oauthGrantsRouter } from './routes/oauth/oauth-grants.router';
import { oauthPagesRouter } from './routes/oauth/oauth-pages.router';
import { externalResourceRouter, mcpBearerChallenge, oauthServerRouter } from './routes/oauth/oauth-server.router';

const BODY_LIMIT = '1mb';
const BATCH_BODY_LIMIT = '10mb';

export interface ApiApp {
  app: Express;
  /**
   * Stops what the app started on its own (the load gauge's sampler, the rate limiters' sweeps and
   * census), not the context's database, Redis or workers: their owner closes those. Left running,
   * those timers would keep the app, and a test file's whole module graph, alive.
   */
  close(): Promise<void>;
}

/** Builds the Express app without listening: http-server.ts listens, tests mount it with supertest. */
export function createApp(ctx: AppContext): ApiApp {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', ctx.config.trustProxy);
  app.set('query parser', 'simple');

  const limits = { redis: ctx.redis, keyPrefix: ctx.config.redisKeyPrefix, logger: ctx.logger };
  requestLogs(app, ctx.logger);
  app.use(requestMetrics(ctx.metrics), requestId, requestLogger(ctx.logger), limitHeaderCount, requireHostHeader);
  // app.locals.load: what the process carries now (tests and diagnostics read it).
  const load = new LoadGauge(ctx);
  app.locals.load = load;
  // The caller first (its key's row is cached): admission takes the accounts in turn.
  app.use(identifyCaller(ctx));
  app.use(backpressure(ctx, load, (accountId) => ctx.usage.limitOf(accountId, 'fair_share_weight')));
  // With read replicas: a read's database is chosen as it starts (runAsRead), a write's fence recorded as it ends.
  if (ctx.readRouting) {
    app.locals.routeRead = (req: express.Request) => routeRead(ctx, req);
    replicaMetrics(ctx.metrics.registry, ctx.readRouting);
    app.use(fenceWrites(ctx));
  }
  app.use(consoleRouter(ctx)); // the web console's static files, before rate limits
  const apiLimiter = apiRateLimit(ctx.config.rateLimit.perMinute, ctx.config.rateLimit.unauthenticatedPerMinute, limits);
  const registerLimiter = registerRateLimit(ctx.config.rateLimit.registerPerMinute, limits);
  // Beside each key's budget, the account's (requests_per_minute, all its keys together).
  const accountLimiter = accountRateLimit((accountId) => ctx.usage.limitOf(accountId, 'requests_per_minute'), limits);
  const close = async () => {
    load.close();
    await Promise.all([apiLimiter.close(), registerLimiter.close(), accountLimiter.close()]);
  };
  app.use(apiLimiter, accountLimiter);
  app.use(answerOptions(app));

  // Public routes.
  app.use(openApiRouter(ROUTE_DOCS));
  app.use(healthRouter(ctx));
  app.use(authRouter(ctx, [registerLimiter, safeUrl, ...jsonBody(BODY_LIMIT)]));
  // With OAUTH_PUBLIC_URL: the authorization server for remote MCP hosts, its pages, and /mcp's bearer challenge.
  // With OAUTH_ISSUER as well: an external identity provider's tokens instead, and no server of our own.
  if (ctx.config.oauth.publicUrl) {
    app.use(ctx.config.oauth.external ? externalResourceRouter(ctx) : [oauthServerRouter(ctx, registerLimiter), oauthPagesRouter(ctx)]);
    app.use('/mcp', mcpBearerChallenge(ctx));
  }

  // Everything below needs a valid key, checked before the body is even parsed.
  app.use(requireAuth);
  app.use(safeUrl);
  // NDJSON streamed line by line: before the JSON body parser.
  app.use(importRouter(ctx));
  app.use('/v1/memories/batch', jsonBody(BATCH_BODY_LIMIT));
  app.use(jsonBody(BODY_LIMIT));
  // Counts the account's requests, searches and embeddings; refuses past a daily limit.
  app.use(accountUsage(ctx.usage));
  // Each router names the scope of each of its routes. The memory routers come first: they carry the hot requests
  // (create, v2 ack, search), and every router passed on the way costs a request its route matching; no other
  // router's route has a path theirs match. The routers for existing clients' endpoints come next: their literal
  // segments (/v1/projects/shared-patterns, /v1/patterns/suggest, ...) win over `{id}`.
  app.use(memoriesRouter(ctx));
  app.use(memoriesV2Router(ctx));
  app.use(projectRelationshipsRouter(ctx));
  app.use(patternSuggestionsRouter(ctx));
  app.use(compatRouter(ctx));
  app.use(memoryImportanceRouter(ctx));
  app.use(memoryHistoryRouter(ctx));
  app.use(entityGraphRouter(ctx));
  app.use(quotaRouter(ctx));
  app.use(usageRouter(ctx), accountLimitsRouter(ctx));
  app.use(embedRouter(ctx));
  app.use(apiKeysRouter(ctx));
  app.use(oauthGrantsRouter(ctx));
  app.use(agentsRouter(ctx));
  app.use(entitiesRouter(ctx));
  app.use(sessionsRouter(ctx));
  app.use(projectsRouter(ctx));
  app.use(decisionsRouter(ctx));
  app.use(patternsRouter(ctx));
  app.use(webhooksRouter(ctx));
  app.use(contextRouter(ctx));
  // Read views the web console needs beyond the spec.
  app.use(currentKeyRouter(ctx), ingestionRouter(ctx));
  app.use(metricsRouter(ctx));
  app.use(reembedRouter(ctx));
  app.use(retieringRouter(ctx));
  app.use(exportRouter(ctx));
  app.use(mcpRouter(ctx));

  app.use(notFoundRoute);
  app.use(errorHandler(ctx.logger));
  return { app, close };
}

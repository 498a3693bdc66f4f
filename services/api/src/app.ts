import express, { Express } from 'express';
import type { AppContext } from './context';
import { identifyCaller, requireAuth } from './middleware/authenticate';
import { errorHandler, notFoundRoute } from './middleware/error-handler';
import { jsonBody } from './middleware/json-body';
import { apiRateLimit, registerRateLimit } from './middleware/rate-limit';
import { requestId } from './middleware/request-id';
import { requestLogger } from './middleware/request-logger';
import { mcpRouter } from './mcp/mcp.router';
import { ROUTE_DOCS } from './openapi/all-route-docs';
import { openApiRouter } from './openapi/openapi.router';
import { agentsRouter } from './routes/agents/agents.router';
import { apiKeysRouter } from './routes/api-keys/api-keys.router';
import { authRouter } from './routes/auth/auth.router';
import { contextRouter } from './routes/context/context.router';
import { decisionsRouter } from './routes/decisions/decisions.router';
import { entitiesRouter } from './routes/entities/entities.router';
import { healthRouter } from './routes/health/health.router';
import { memoriesRouter } from './routes/memories/memories.router';
import { memoriesV2Router } from './routes/memories/memories-v2.router';
import { patternsRouter } from './routes/patterns/patterns.router';
import { projectsRouter } from './routes/projects/projects.router';
import { sessionsRouter } from './routes/sessions/sessions.router';
import { webhooksRouter } from './routes/webhooks/webhooks.router';

export const BODY_LIMIT = '1mb';
export const BATCH_BODY_LIMIT = '10mb';

/** Builds the Express app without listening: server.ts listens, tests mount it with supertest. */
export function createApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', ctx.config.trustProxy);
  app.set('query parser', 'simple');

  const limits = { redis: ctx.redis, keyPrefix: ctx.config.redisKeyPrefix, logger: ctx.logger };
  app.use(requestId, requestLogger(ctx.logger));
  app.use(identifyCaller(ctx));
  app.use(apiRateLimit(ctx.config.rateLimit.perMinute, ctx.config.rateLimit.unauthenticatedPerMinute, limits));

  // Public routes.
  app.use(openApiRouter(ROUTE_DOCS));
  app.use(healthRouter(ctx));
  app.use(authRouter(ctx, [registerRateLimit(ctx.config.rateLimit.registerPerMinute, limits), ...jsonBody(BODY_LIMIT)]));

  // Everything below needs a valid key, checked before the body is even parsed.
  app.use(requireAuth);
  app.use('/v1/memories/batch', jsonBody(BATCH_BODY_LIMIT));
  app.use(jsonBody(BODY_LIMIT));
  // Each router names the scope of each of its routes.
  app.use(apiKeysRouter(ctx));
  app.use(agentsRouter(ctx));
  app.use(memoriesRouter(ctx));
  app.use(memoriesV2Router(ctx));
  app.use(entitiesRouter(ctx));
  app.use(sessionsRouter(ctx));
  app.use(projectsRouter(ctx));
  app.use(decisionsRouter(ctx));
  app.use(patternsRouter(ctx));
  app.use(webhooksRouter(ctx));
  app.use(contextRouter(ctx));
  app.use(mcpRouter(ctx));

  app.use(notFoundRoute);
  app.use(errorHandler(ctx.logger));
  return app;
}

import type { KeyCheckDeps, LimitsDeps, OAuthDeps } from '@ams/accounts';
import { secretBoxFor } from '@ams/core';
import type { RetieringDeps } from '@ams/memories';
import type { ReembedDeps } from '@ams/vectors';
import type { WebhookDeps } from '@ams/webhooks';
import type { AppContext } from './context';

// Each domain package takes only what its rules use; these cut that out of the process's context.
// Reads that stop with their request take requestResources (memory-deps.ts) instead of `store`.

/** The process's database, model and search recorder, bound to no request: what writes use, and reads that always finish. */
export const store = (ctx: AppContext) => ({ db: ctx.db.knex, embedder: ctx.embedder, searches: ctx.searches });

/** Checking presented API keys. */
export const keyCheckDeps = (ctx: AppContext): KeyCheckDeps => ({ db: ctx.db.knex, logger: ctx.logger, apiKeyCacheMs: ctx.config.apiKeyCacheMs });

/** The OAuth rules: this server's /mcp as the one resource, each event logged and counted. */
export const oauthDeps = (ctx: AppContext): OAuthDeps => ({
  db: ctx.db.knex,
  oauth: {
    resource: `${ctx.config.oauth.publicUrl}/mcp`,
    accessTokenTtlSeconds: ctx.config.oauth.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: ctx.config.oauth.refreshTokenTtlSeconds,
    signIn: ctx.config.oauth.signIn,
  },
  event(name, fields) {
    ctx.metrics?.countOAuth(name);
    const level = name === 'sign_in_failed' || name === 'sign_in_throttled' || name === 'token_refused' || name.endsWith('_replayed') ? 'warn' : 'info';
    ctx.logger.log(level, `oauth ${name.replace(/_/g, ' ')}`, { oauth_event: name, ...fields });
  },
});

/** The webhook rules; the secrets' key is made on first use. */
export const webhookDeps = (ctx: AppContext): WebhookDeps => ({
  db: ctx.db.knex,
  allowLoopback: ctx.config.webhooks.allowLoopback,
  secretBox: () => secretBoxFor(ctx.config),
  dispatch: ctx.webhookDispatch,
});

/** Starting a re-embed run. */
export const reembedDeps = (ctx: AppContext): ReembedDeps => ({
  ...store(ctx),
  logger: ctx.logger,
  defaultModel: ctx.config.embedding.model,
  models: ctx.models,
  reembedRunner: ctx.reembedRunner,
});

/** Re-tiering's settings, moves and runs on request. */
export const retieringDeps = (ctx: AppContext): RetieringDeps => ({
  db: ctx.db.knex,
  intervalMs: ctx.config.retiering.intervalMs,
  batchSize: ctx.config.retiering.batchSize,
  dispatch: ctx.webhookDispatch,
  searches: ctx.searches,
});

/** Account limits and usage: the database and the process's usage meter. */
export const limitsDeps = (ctx: AppContext): LimitsDeps => ({ db: ctx.db.knex, meter: ctx.usage });

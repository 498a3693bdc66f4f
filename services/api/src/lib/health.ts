import { VERSION } from '@ams/core';
import { pingDatabase } from '@ams/db';
import { openReembedProgress } from '@ams/vectors';
import type { AppContext } from '../context';
import { pingRedis } from '@ams/runtime';

const API_VERSION = 'v1';

export type ComponentState = 'connected' | 'disconnected' | 'not_configured';

async function databaseState(ctx: AppContext): Promise<ComponentState> {
  try {
    await pingDatabase(ctx.db.knex);
    return 'connected';
  } catch {
    return 'disconnected';
  }
}

/** healthy when every configured component answers; degraded names the one that does not. */
export async function checkHealth(ctx: AppContext) {
  const [database, redis, reembed] = await Promise.all([
    databaseState(ctx),
    ctx.redis ? pingRedis(ctx.redis).then((ok): ComponentState => (ok ? 'connected' : 'disconnected')) : 'not_configured' as const,
    openReembedProgress({ db: ctx.db.knex }).catch(() => null),
  ]);
  const healthy = database === 'connected' && redis !== 'disconnected';
  const up = (state: ComponentState) => (state === 'disconnected' ? 'down' : state === 'connected' ? 'up' : state);
  return {
    status: healthy ? 'healthy' : 'degraded',
    version: VERSION,
    mode: ctx.config.mode,
    database,
    redis,
    embedding: {
      provider: ctx.embedder.provider,
      model: ctx.embedder.model,
      dimensions: ctx.embedder.dimensions,
      ...(ctx.embedder.fallbackReason ? { fallback: true, fallback_reason: ctx.embedder.fallbackReason } : {}),
    },
    reembed,
    // Read replicas (DATABASE_REPLICA_URLS): a replica away never degrades the API (reads fall back to the primary).
    ...(ctx.readRouting
      ? { replicas: ctx.readRouting.replicas.status().map((r) => ({ name: r.name, state: r.state, lag_ms: r.lagMs, lag_bytes: r.lagBytes, ...(r.error ? { error: r.error } : {}) })) }
      : {}),
    // Members existing clients require (docs/clients.md, "Additive response members"); integers where they expect integers.
    api_version: API_VERSION,
    environment: ctx.config.nodeEnv,
    timestamp: Math.floor(Date.now() / 1000),
    uptime_seconds: Math.floor(process.uptime()),
    services: { database: up(database), redis: up(redis), embeddings: 'up' },
    embedding_info: { dimension: ctx.embedder.dimensions, model: ctx.embedder.model, provider: ctx.embedder.provider },
  };
}

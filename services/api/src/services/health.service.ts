import type { AppContext } from '../context';
import { VERSION } from '@ams/core';
import { pingRedis } from '../lib/redis';

export type ComponentState = 'connected' | 'disconnected' | 'not_configured';

async function databaseState(ctx: AppContext): Promise<ComponentState> {
  try {
    await ctx.db.knex.raw('select 1');
    return 'connected';
  } catch {
    return 'disconnected';
  }
}

/** healthy when every configured component answers; degraded names the one that does not. */
export async function checkHealth(ctx: AppContext) {
  const [database, redis] = await Promise.all([
    databaseState(ctx),
    ctx.redis ? pingRedis(ctx.redis).then((ok): ComponentState => (ok ? 'connected' : 'disconnected')) : 'not_configured' as const,
  ]);
  const healthy = database === 'connected' && redis !== 'disconnected';
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
  };
}

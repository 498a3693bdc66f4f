import type { Config, Logger } from '@ams/core';
import { ReplicaSet, type Database } from '@ams/db';
import type { RedisConnection } from './redis';
import { WriteFences } from './write-fences';

/** Where a read went and why: replica; own_write (a replica is up but has yet to replay the key's write); no_replica; fence_unknown (Redis away). */
export type ReadRoute = 'replica' | 'own_write' | 'no_replica' | 'fence_unknown';

/** The read replicas of an API process and the keys' write fences: what middleware/route-reads.ts chooses each read's database with. */
export interface ReadRouting {
  replicas: ReplicaSet;
  fences: WriteFences;
  /** Reads routed, by route (the /metrics counter). */
  routed: Record<ReadRoute, number>;
  /** Time spent choosing reads' databases (fence lookup + choice) and recording writes' fences, in seconds. */
  timing: { readChecks: number; readSeconds: number; writeNotes: number; writeSeconds: number };
  close(): Promise<void>;
}

/** DATABASE_REPLICA_URLS set: the replicas, checked once before the process serves. Otherwise undefined. */
export async function startReadRouting(config: Config, db: Database, redis: RedisConnection | undefined, logger: Logger): Promise<ReadRouting | undefined> {
  if (!config.replicas.urls.length || !config.databaseUrl) return undefined;
  const replicas = new ReplicaSet(db.knex, {
    primaryUrl: config.databaseUrl,
    urls: config.replicas.urls,
    maxLagMs: config.replicas.maxLagMs,
    checkIntervalMs: config.replicas.checkIntervalMs,
    poolMax: config.dbPoolMax,
    features: { preparedStatements: config.dbPreparedStatements, cancelAbandonedReads: config.dbCancelAbandonedReads },
    logger,
  });
  await replicas.start();
  for (const r of replicas.status()) logger.info('read replica', { replica: r.name, state: r.state, lag_ms: r.lagMs });
  const ttlMs = config.replicas.maxLagMs + config.replicas.checkIntervalMs;
  return {
    replicas,
    fences: new WriteFences(ttlMs, redis && { conn: redis, prefix: config.redisKeyPrefix }),
    routed: { replica: 0, own_write: 0, no_replica: 0, fence_unknown: 0 },
    timing: { readChecks: 0, readSeconds: 0, writeNotes: 0, writeSeconds: 0 },
    close: () => replicas.close(),
  };
}


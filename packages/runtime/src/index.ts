// The composition root: what each process role builds, starts and stops (start.ts), and the
// process-wide pieces the API's middleware reaches (Redis, read routing, write fences).
export { apiRole, start, type Role, type Started, type StartOptions } from './start';
export type { ApiContext, ProcessContext } from './contexts';
export { DRAIN_MS, SHUTDOWN_GRACE_MS } from './drain';
export type { Ingestion } from './background-work';
export { connectRedis, pingRedis, type RedisClient, type RedisConnection } from './redis';
export { startReadRouting, type ReadRoute, type ReadRouting } from './read-routing';
export { EVERYTHING, WriteFences } from './write-fences';

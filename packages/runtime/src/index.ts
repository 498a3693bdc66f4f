// The composition root: what each process role builds, starts and stops (start.ts), and the
// process-wide pieces the API's middleware reaches (Redis, read routing, write fences).
export { apiRole, start } from './start';
export type { ApiContext } from './contexts';
export { DRAIN_MS, SHUTDOWN_GRACE_MS } from './drain';
export { connectRedis, pingRedis, type RedisConnection } from './redis';
export { startReadRouting, type ReadRoute, type ReadRouting } from './read-routing';
export { EVERYTHING, WriteFences } from './write-fences';

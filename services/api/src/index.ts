/** What other workspaces may use of the API service: today only @ams/testing (the test app) and the benches. */
export { closeApp, createApp } from './app';
export { apiMetrics,  } from './lib/api-metrics';
export type { AppContext } from './context';
export { createIngestion,  } from './lib/ingestion';
export { connectRedis, type RedisConnection } from './lib/redis';
export { startReadRouting,  } from './lib/read-routing';
export type { Scope } from '@ams/accounts';
export { issueApiKey } from './issue-api-key';
export { searchHelpers } from './search-helpers';
export { ROUTE_DOCS } from './openapi/all-route-docs';
export { documentOf } from './openapi/openapi.router';
export { validationTrace } from './openapi/validation-trace';
export { routeKey, walkRoutes } from './openapi/walk-routes';

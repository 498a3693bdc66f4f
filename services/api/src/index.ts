/** What other workspaces may use of the API service: @ams/testing (the test app) and the benches. */
export { createApp } from './app';
export type { AppContext } from './context';
export type { Scope } from '@ams/accounts';
export { issueApiKey } from './issue-api-key';
export { importRecordRules } from './routes/import/import-record-rules';
export { ROUTE_DOCS } from './openapi/all-route-docs';
export { documentOf } from './openapi/openapi.router';
export { validationTrace } from './openapi/validation-trace';
export { routeKey, walkRoutes } from './openapi/walk-routes';

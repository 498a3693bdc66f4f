/**
 * Test support shared by every workspace's tests (never imported by production code): the API test
 * app and accounts, factories through the repositories, child processes and a Redis of a test's own,
 * an HTTPS receiver and a connection canary, the generated embedding model, and the one `waitFor`.
 */
export * from './wait';
export * from './test-app';
export * from './memory-factory';
export * from './processes';
export * from './dispatcher-process';
export * from './https-receiver';
export * from './canary';
export * from './test-model';
export * from './joi-arbitrary';
export * from './fake-hub';
export * from './mcp-tool-tour';
export * from './scratch-database';
export * from './account-fingerprint';
export * from './test-replica';
export * from './test-pglite';
export * from './oauth-flow';
export * from './generated-store';

import type { Config } from '@jest/types';

const shared: Config.InitialProjectOptions = {
  // Transpile only: `npm run build` type-checks; tests stay fast.
  // CommonJS (`import()` becomes `require()`), so jest runs without --experimental-vm-modules, whose
  // per-file vm modules are never collected (~50 MB a file). The one ESM-only package loaded in
  // process, @xenova/transformers, comes through test/onnx-environment.js (see test/esm/).
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false, tsconfig: { module: 'commonjs', moduleResolution: 'node', isolatedModules: true } }],
  },
  runtime: '<rootDir>/test/runtime.js',
  // compromise: the worker's one copy (test/shared/compromise.js), not a fresh load per file.
  moduleNameMapper: {
    '^@xenova/transformers$': '<rootDir>/test/esm/xenova-transformers.js',
    '^compromise$': '<rootDir>/test/shared/compromise.js',
    '^jose$': '<rootDir>/test/esm/jose.js',
  },
  testEnvironment: '<rootDir>/test/environment.js',
  moduleFileExtensions: ['ts', 'js', 'json'],
  // Each jest worker's own database and Redis key prefix (see test/global-setup.ts).
  setupFiles: ['<rootDir>/test/worker-env.ts'],
};

/**
 * Suites that start, SIGKILL or SIGTERM processes (API servers, the embedding worker, the webhook
 * dispatcher, redis-server, a browser): the `processes` projects, which run them one at a time
 * beside the other worker's ordinary files (test/process-suite.ts). A suite whose only process is a
 * light one of its own stays in the ordinary projects: packages/jobs' redis-failure-retry.test.ts
 * restarts a redis-server on its own port, and spends its ~5 s waiting on Bee-Queue's retry timer.
 */
const PROCESS_SUITES = [
  'services/api/test/integration/api-process-faults.test.ts',
  'services/api/test/integration/rate-limit-outage.test.ts',
  'services/api/test/integration/metrics.test.ts',
  // Both change the test replica (its apply delay; stopping it): one replica suite at a time.
  'services/api/test/integration/read-replicas-consistency.test.ts',
  'services/api/test/integration/read-replicas-faults.test.ts',
  'services/embedding-worker/test/integration/worker-process.test.ts',
  'services/embedding-worker/test/integration/reembed-process.test.ts',
  'services/webhook-dispatcher/test/integration/dispatcher.test.ts',
  'services/webhook-dispatcher/test/integration/redis-restart.test.ts',
  'packages/console/test/integration/console.browser.test.ts',
  'packages/console/test/integration/memory-timeline.browser.test.ts',
  'packages/console/test/integration/time-aware.browser.test.ts',
  'services/api/test/integration/oauth-connector.browser.test.ts',
];
const asPattern = (file: string) => `/${file.replace(/[.]/g, '\\.')}$`;
const PROCESS_SUITE_PATTERNS = PROCESS_SUITES.map(asPattern);
/** The API's suites that run on both backends (the API process faults need a server database). */
const API_PROCESS_SUITES_ON_PGLITE = PROCESS_SUITES.filter((f) => f.startsWith('services/api/') && !/(api-process-faults|read-replicas-[a-z]+)\.test\.ts$/.test(f));

/**
 * unit: pure code, no services. integration: real PostgreSQL + pgvector and Redis, on the jest
 * worker's own clone of the run's migrated database. integration (pglite): the API suite again on
 * PGlite. processes / processes (pglite): the suites that start and kill processes, one at a time.
 */
const config: Config.InitialOptions = {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testSequencer: '<rootDir>/test/sequencer.js',
  testTimeout: 30_000,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{packages,services}/*/test/unit/**/*.test.ts'] },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/{packages,services}/*/test/integration/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/citus/', ...PROCESS_SUITE_PATTERNS],
    },
    {
      // The API suite again on PGlite, the database of `npm start`. Only the API's suite: the worker and
      // dispatcher tests run separate processes against one shared database, which an in-memory PGlite
      // (one process, one connection) cannot be; packages' integration tests do not depend on the backend.
      ...shared,
      displayName: 'integration (pglite)',
      testMatch: ['<rootDir>/services/api/test/integration/**/*.test.ts'],
      // Suites that start processes run in the projects below. The file-mode test starts its own embedded
      // process whatever the backend, so once is enough.
      testPathIgnorePatterns: ['/node_modules/', ...PROCESS_SUITE_PATTERNS, asPattern('services/api/test/integration/embedded-file-modes.test.ts')],
      setupFilesAfterEnv: ['<rootDir>/test/pglite-backend.ts'],
    },
    {
      ...shared,
      displayName: 'processes',
      testMatch: PROCESS_SUITES.map((f) => `<rootDir>/${f}`),
      setupFilesAfterEnv: ['<rootDir>/test/process-suite.ts'],
    },
    {
      ...shared,
      displayName: 'processes (pglite)',
      testMatch: API_PROCESS_SUITES_ON_PGLITE.map((f) => `<rootDir>/${f}`),
      setupFilesAfterEnv: ['<rootDir>/test/pglite-backend.ts', '<rootDir>/test/process-suite.ts'],
    },
    // Only with TEST_BACKEND=citus (the cluster of infra/citus-cluster.sh): what holds on Citus alone
    // (single-shard plans, rebalancing). The integration project runs on the cluster then too.
    ...(process.env.TEST_BACKEND === 'citus'
      ? [{ ...shared, displayName: 'citus', testMatch: ['<rootDir>/test/citus/**/*.test.ts'] }]
      : []),
  ],
};

export default config;

import type { Config } from '@jest/types';

const shared: Config.InitialProjectOptions = {
  // Transpile only: `npm run build` type-checks; tests stay fast.
  // module node16 keeps `import()` native, so ESM-only packages (@xenova/transformers) load in tests.
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false, tsconfig: { module: 'node16', moduleResolution: 'node16', isolatedModules: true } }],
  },
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
};

/**
 * unit: pure code, no services. integration: real PostgreSQL + pgvector and Redis; the global setup
 * creates one database for the run and drops it afterwards.
 */
const config: Config.InitialOptions = {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 30_000,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{packages,services}/*/test/unit/**/*.test.ts'] },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/{packages,services}/*/test/integration/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
    },
    {
      // The API suite again on PGlite, the database of `npm start`. Only the API's suite: the worker and
      // dispatcher tests run separate processes against one shared database, which an in-memory PGlite
      // (one process, one connection) cannot be; packages' integration tests do not depend on the backend.
      ...shared,
      displayName: 'integration (pglite)',
      testMatch: ['<rootDir>/services/api/test/integration/**/*.test.ts'],
      // Real API processes sharing one database: a server's, never an in-memory PGlite. The file-mode
      // test starts its own embedded process whatever the backend, so once is enough.
      testPathIgnorePatterns: ['/node_modules/', 'api-process-faults\\.test\\.ts$', 'embedded-file-modes\\.test\\.ts$'],
      setupFilesAfterEnv: ['<rootDir>/test/pglite-backend.ts'],
    },
  ],
};

export default config;

import { closeSharedTestDatabase } from '@ams/testing';

// The integration (pglite) project: createTestApp gives the apps of each test file one in-memory
// PGlite, the embedded mode's database. Starting it takes seconds of WASM set-up (far more on a
// loaded machine), hence the longer timeout for the hooks and tests that start it.
process.env.TEST_BACKEND = 'pglite';
jest.setTimeout(120_000);
afterAll(closeSharedTestDatabase);

import { closeSharedTestDatabase } from '@ams/testing';

// The pglite projects: createTestApp gives the apps of each test file the jest worker's in-memory
// PGlite, the embedded mode's database (createTestPglite). The worker's first file starts it: seconds
// of WASM set-up and initdb (far more on a loaded machine), hence the longer timeout.
process.env.TEST_BACKEND = 'pglite';
jest.setTimeout(120_000);
afterAll(closeSharedTestDatabase);

/* global process */
// Every project's test environment: jest-environment-node, plus a store kept for the jest worker's life.
// This module loads once per worker, outside the test files' sandboxes, so what it holds outlives a file
// and belongs to no file's realm (a file's own objects kept here would keep its whole sandbox alive).
// The test harness uses it for the worker's one in-memory PGlite, which the pglite projects' files use
// in turn (@ams/testing's test-pglite.ts); for the test apps' OpenAPI response check, compiled once per
// worker (test/openapi-response-check.js); and compromise, whose load builds its lexicon
// (test/shared/compromise.js); and jose, which only Node's own loader can require (test/esm/jose.js).
const asyncHooks = require('node:async_hooks');
const { TestEnvironment } = require('jest-environment-node');
const { openApiResponseCheck, VIOLATIONS } = require('./openapi-response-check');

/** The worker's PGlite, started on first use, and the number of the lease its current file holds. */
let pglite;
let pgliteLease = 0;

async function startPglite() {
  const { PGlite } = require('@electric-sql/pglite');
  const { vector } = require('@electric-sql/pglite-pgvector');
  return PGlite.create('memory://', { extensions: { vector } });
}

const workerStore = Object.freeze({
  /**
   * The worker's in-memory PGlite (with pgvector) for the file that asks, and a lease that ends when
   * the next file asks. Started once per worker: a start is seconds of WebAssembly set-up and initdb.
   */
  async leasePglite() {
    pglite ??= startPglite().catch((err) => {
      pglite = undefined;
      throw err;
    });
    const session = await pglite;
    return { session, lease: ++pgliteLease };
  },
  /** Whether `lease` is still the current file's. */
  holdsPglite(lease) {
    return lease === pgliteLease;
  },
  /** The test apps' OpenAPI response check for a document (its JSON text): see test/openapi-response-check.js. */
  openApiResponseCheck,
  /** The request property where that check files a finding: the app's list, set by the file's wrapper. */
  openApiViolations: VIOLATIONS,
  /** compromise, loaded once per worker (test/shared/compromise.js). */
  compromise: () => require('compromise'),
  /** jose, ESM-only: required here, in Node's own loader, which a file's sandbox cannot do (test/esm/jose.js). */
  jose: () => require('jose'),
});

/**
 * A file's AsyncLocalStorage instances, disabled when the file ends. node:async_hooks is the one
 * module every file of the worker shares, and it keeps each enabled instance in one list that every
 * new promise and async resource walks (Node 20): a file's three or four (the app's, jest-circus')
 * left enabled made every later file's async work slower, ~12x per await past 50 of them.
 */
const fileStorages = new Set();
asyncHooks.AsyncLocalStorage = class FileAsyncLocalStorage extends asyncHooks.AsyncLocalStorage {
  constructor() {
    super();
    fileStorages.add(this);
  }
};

class WorkerStoreEnvironment extends TestEnvironment {
  async teardown() {
    for (const storage of fileStorages) storage.disable();
    fileStorages.clear();
    await super.teardown();
  }

  constructor(config, context) {
    super(config, context);
    this.global.__AMS_WORKER_STORE__ = workerStore;
  }
}

/**
 * Closes the worker's PGlite, if this process started one. A PGlite that has touched tables keeps a
 * 10 s statistics timer of PostgreSQL's armed while idle, which holds its process open: a worker
 * process past its last file (jest kills it, and says it failed to exit), or jest's own in a run on
 * one process (one file, --runInBand), where the global teardown calls this.
 */
async function closeWorkerPglite() {
  const started = pglite;
  pglite = undefined;
  await (await started?.catch(() => undefined))?.close();
}
WorkerStoreEnvironment.closeWorkerPglite = closeWorkerPglite;

// A worker process is told to end by jest-worker's message [2] (CHILD_MESSAGE_END).
if (process.send) {
  const onMessage = (message) => {
    if (!Array.isArray(message) || message[0] !== 2) return;
    process.off('message', onMessage);
    void closeWorkerPglite();
  };
  process.on('message', onMessage);
}

module.exports = WorkerStoreEnvironment;

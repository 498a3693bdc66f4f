/* global WebAssembly, Blob */
// Every project's test environment: jest-environment-node, plus a store kept for the jest worker's life.
// This module loads once per worker, outside the test files' sandboxes, so what it holds outlives a file
// and belongs to no file's realm (a file's own objects kept here would keep its whole sandbox alive).
// The test harness uses it to start each file's in-memory PGlite from work done once per worker
// (@ams/testing's pglite-start.ts): compiled WebAssembly, the file-system bundle, a migrated data directory;
// for the test apps' OpenAPI response check, compiled once per worker (test/openapi-response-check.js);
// and compromise, whose load builds its lexicon (test/shared/compromise.js).
const asyncHooks = require('node:async_hooks');
const fs = require('node:fs');
const { TestEnvironment } = require('jest-environment-node');
const { openApiResponseCheck, VIOLATIONS } = require('./openapi-response-check');

const compiled = new Map();
const blobs = new Map();

const workerStore = Object.freeze({
  /** `file` (a .wasm) compiled once per worker: V8 keeps the code it compiles while running on the module. */
  wasmModule(file) {
    if (!compiled.has(file)) compiled.set(file, WebAssembly.compile(fs.readFileSync(file)));
    return compiled.get(file);
  },
  /** `file`'s bytes as a Blob, read once per worker. */
  fileBlob(file) {
    if (!blobs.has(file)) blobs.set(file, new Blob([fs.readFileSync(file)]));
    return blobs.get(file);
  },
  /** What `keep` kept under `key`, if anything. */
  blob(key) {
    return blobs.get(key);
  },
  /** A copy of `bytes` (an ArrayBuffer or typed array) kept under `key` for the worker's later files; the first kept stays. */
  keep(key, bytes) {
    if (!blobs.has(key)) blobs.set(key, new Blob([bytes]));
  },
  /** The test apps' OpenAPI response check for a document (its JSON text): see test/openapi-response-check.js. */
  openApiResponseCheck,
  /** The request property where that check files a finding: the app's list, set by the file's wrapper. */
  openApiViolations: VIOLATIONS,
  /** compromise, loaded once per worker (test/shared/compromise.js). */
  compromise: () => require('compromise'),
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
    // A module compiled here must pass the `instanceof WebAssembly.Module` of code in the file (PGlite's
    // loader checks it), which the file's realm's own class would fail.
    const FileModule = this.global.WebAssembly.Module;
    Object.defineProperty(FileModule, Symbol.hasInstance, {
      value: (value) => value instanceof WebAssembly.Module || Function.prototype[Symbol.hasInstance].call(FileModule, value),
    });
  }
}

module.exports = WorkerStoreEnvironment;

// The environment of the test files that run @xenova/transformers in process.
// onnxruntime-node's native code checks tensor data against the main realm's typed-array
// constructors; jest runs tests in a vm context with its own. Share the real ones.
// The suite runs as CommonJS (no --experimental-vm-modules: its vm modules are never collected), and
// jest cannot require an ESM-only package, so the package is imported here, natively, and
// test/esm/xenova-transformers.js (its moduleNameMapper target) hands it to the file.
const WorkerStoreEnvironment = require('./environment');

class OnnxEnvironment extends WorkerStoreEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of ['Float32Array', 'Float64Array', 'Int32Array', 'BigInt64Array', 'Int8Array', 'Uint8Array']) {
      this.global[name] = globalThis[name];
    }
  }

  async setup() {
    await super.setup();
    // Node's own import: cached for the worker's life, so only its first file pays the load.
    this.global.__AMS_ESM__ = { '@xenova/transformers': await import('@xenova/transformers') };
  }
}

module.exports = OnnxEnvironment;

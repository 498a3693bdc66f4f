// onnxruntime-node's native code checks tensor data against the main realm's typed-array
// constructors; jest runs tests in a vm context with its own. Share the real ones.
const { TestEnvironment } = require('jest-environment-node');

class OnnxEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of ['Float32Array', 'Float64Array', 'Int32Array', 'BigInt64Array', 'Int8Array', 'Uint8Array']) {
      this.global[name] = globalThis[name];
    }
  }
}

module.exports = OnnxEnvironment;

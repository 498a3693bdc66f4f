// moduleNameMapper target for @xenova/transformers (jest.config.ts). The suite runs as CommonJS,
// without --experimental-vm-modules, and jest cannot require an ESM-only package. The files that
// load the model in process run under test/onnx-environment.js, which imports the package natively
// (in the worker's own realm, once per worker) and hands its namespace over here.
const loaded = globalThis.__AMS_ESM__?.['@xenova/transformers'];
if (!loaded) {
  throw new Error('@xenova/transformers is ESM-only: a test file that loads it in process needs `@jest-environment <rootDir>/test/onnx-environment.js`');
}
module.exports = loaded;

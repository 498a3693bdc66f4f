// moduleNameMapper target for jose (jest.config.ts): ESM-only, so a file's sandbox (CommonJS) cannot
// load it; test/environment.js requires it in Node's own loader (require of ESM, Node >= 20.19) and
// every file of the worker shares that copy.
const store = globalThis.__AMS_WORKER_STORE__;
if (!store) throw new Error("jose is the jest worker's copy: a test file needs the repository's jest environment (test/environment.js)");
module.exports = store.jose();

// moduleNameMapper target for compromise (jest.config.ts): the jest worker's one copy, loaded by
// test/environment.js outside the files' sandboxes. compromise builds its lexicon as it loads (~0.6 s
// of CPU), which every file that imports the app paid again in its own module registry. The app
// only reads it (tokenize, tag, match: no plugins or added words), so files can share it.
const store = globalThis.__AMS_WORKER_STORE__;
if (!store) throw new Error("compromise is the jest worker's copy: a test file needs the repository's jest environment (test/environment.js)");
module.exports = store.compromise();

// jest's module runtime, with two changes.
// 1. A dynamic `import()` left in untransformed CommonJS code (PGlite's CommonJS build imports Node
// built-ins such as `module` and `fs/promises` that way) goes to Node's own loader. jest-runtime
// otherwise hands it to its vm-module loader, which needs --experimental-vm-modules, and that flag
// keeps every test file's modules alive for the worker's life. Our TypeScript compiles `import()` to
// `require()` (jest.config.ts), so only node_modules reach this.
// 2. V8's code cache, kept for the worker's life. jest compiles every module of every file afresh in
// the file's sandbox (~2,300 modules for a file that imports the app), and V8 then compiles each
// function lazily as it first runs. The first file to load a module leaves its code cache, taken when
// the file ends so it holds the functions that file ran; later files start from it. V8 checks the
// data against the source and compiles afresh when it does not fit (`cachedDataRejected`).
// A module with a dynamic `import()` is always compiled afresh: on Node 20 a function that V8
// deserialized from a code cache lost its script's loader, and its `import()` failed with
// ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING (PGlite's extension loading, in any file after one that had
// cached it: prepared-statements.test.ts, then an embedded-mode file).
const crypto = require('node:crypto');
const vm = require('node:vm');
const Runtime = require('jest-runtime').default;
const { handlePotentialSyntaxError } = require('@jest/transform');

/** filename → { hash of the wrapped source, V8's code cache for it }: shared by the worker's files. */
const codeCache = new Map();

class MainLoaderRuntime extends Runtime {
  /** Scripts this file compiled without a usable cache: their caches are taken at teardown. */
  #uncached = [];

  createScriptFromCode(scriptSource, filename) {
    try {
      const scriptFilename = this._resolver.isCoreModule(filename) ? `jest-nodejs-core-${filename}` : filename;
      const source = this.wrapCodeInModuleWrapper(scriptSource);
      const dynamicImport = source.includes('import(');
      const hash = dynamicImport ? undefined : crypto.createHash('sha1').update(source).digest('base64');
      const cached = dynamicImport ? undefined : codeCache.get(scriptFilename);
      const script = new vm.Script(source, {
        columnOffset: this._fileTransforms.get(filename)?.wrapperLength,
        displayErrors: true,
        filename: scriptFilename,
        importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
        cachedData: cached !== undefined && cached.hash === hash ? cached.data : undefined,
      });
      if (!dynamicImport && (cached?.hash !== hash || script.cachedDataRejected)) this.#uncached.push({ scriptFilename, hash, script });
      return script;
    } catch (e) {
      throw handlePotentialSyntaxError(e);
    }
  }

  teardown() {
    for (const { scriptFilename, hash, script } of this.#uncached) codeCache.set(scriptFilename, { hash, data: script.createCachedData() });
    this.#uncached = [];
    super.teardown();
  }
}

module.exports = MainLoaderRuntime;

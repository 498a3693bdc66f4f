// jest's module runtime, with one change: a dynamic `import()` left in untransformed CommonJS code
// (PGlite's CommonJS build imports Node built-ins such as `module` and `fs/promises` that way) goes to
// Node's own loader. jest-runtime otherwise hands it to its vm-module loader, which needs
// --experimental-vm-modules, and that flag keeps every test file's modules alive for the worker's life.
// Our TypeScript compiles `import()` to `require()` (jest.config.ts), so only node_modules reach this.
const vm = require('node:vm');
const Runtime = require('jest-runtime').default;
const { handlePotentialSyntaxError } = require('@jest/transform');

class MainLoaderRuntime extends Runtime {
  createScriptFromCode(scriptSource, filename) {
    try {
      const scriptFilename = this._resolver.isCoreModule(filename) ? `jest-nodejs-core-${filename}` : filename;
      return new vm.Script(this.wrapCodeInModuleWrapper(scriptSource), {
        columnOffset: this._fileTransforms.get(filename)?.wrapperLength,
        displayErrors: true,
        filename: scriptFilename,
        importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
      });
    } catch (e) {
      throw handlePotentialSyntaxError(e);
    }
  }
}

module.exports = MainLoaderRuntime;

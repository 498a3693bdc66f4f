import path from 'node:path';

/**
 * The files a PGlite reads each time it starts: its WebAssembly (PostgreSQL, initdb) and its
 * file-system bundle. A process starting many PGlites (the test harness: one per test file) compiles
 * and reads them once and passes the results as a PgliteStart.
 */
export function pgliteStartFiles(): { pgliteWasm: string; initdbWasm: string; fsBundle: string } {
  const dist = path.dirname(require.resolve('@electric-sql/pglite'));
  return { pgliteWasm: path.join(dist, 'pglite.wasm'), initdbWasm: path.join(dist, 'initdb.wasm'), fsBundle: path.join(dist, 'pglite.data') };
}

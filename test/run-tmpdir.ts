import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Caches tools keep in the temporary directory by design (tsx's transform cache, V8's compile cache). */
const CACHES = /^(tsx-\d+|v8-compile-cache-\d+|jest_\w+)$/;

/**
 * The run's own temporary directory: every process of the run (jest's workers, the services and
 * browsers they start) inherits it as TMPDIR, so what a test or the code under test leaves there is
 * found at the end, and the machine's temporary directory is left as it was.
 */
export function useRunTmpDir(runName: string): void {
  const dir = path.join(os.tmpdir(), `${runName}_tmp`);
  fs.mkdirSync(dir, { recursive: true });
  process.env.TEST_RUN_TMPDIR = dir;
  process.env.TMPDIR = dir;
}

/** Deletes the run's temporary directory; throws naming what the run left there (caches aside). */
export function removeRunTmpDir(): void {
  const dir = process.env.TEST_RUN_TMPDIR;
  if (!dir || !fs.existsSync(dir)) return;
  const left = fs.readdirSync(dir).filter((name) => !CACHES.test(name));
  fs.rmSync(dir, { recursive: true, force: true });
  if (left.length) throw new Error(`the run left files in its temporary directory (a test or the code under test did not delete them): ${left.join(', ')}`);
}

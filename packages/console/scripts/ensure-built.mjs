// Builds the console bundle when it is missing or older than its sources: run on install and
// before start, so a fresh clone serves a working console with no extra step. A fingerprint of
// the sources (not mtimes, which git checkouts reset) decides; an up-to-date bundle costs a hash.
// `--force` builds regardless (`npm run build`), leaving the fingerprint for the next check.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stampFile = join(root, 'dist', '.source-hash');
const optional = process.argv.includes('--optional');
const force = process.argv.includes('--force');

function files(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : [path];
    });
}

function sourceHash() {
  const hash = createHash('sha256');
  // The workspace packages the bundle takes in (the domain's words) are sources of it too.
  const vocabulary = join(root, '..', 'vocabulary', 'src');
  const inputs = [...files(join(root, 'src')), ...files(vocabulary), ...files(join(root, 'public')), join(root, 'index.html'), join(root, 'vite.config.mts'), join(root, 'package.json')];
  for (const path of inputs) hash.update(relative(root, path)).update('\0').update(readFileSync(path)).update('\0');
  return hash.digest('hex');
}

const wanted = sourceHash();
if (!force && existsSync(join(root, 'dist', 'index.html')) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === wanted) process.exit(0);

try {
  const { build } = await import('vite');
  process.stdout.write('Building the web console (packages/console)…\n');
  await build({ root, configFile: join(root, 'vite.config.mts'), logLevel: 'warn' });
  writeFileSync(stampFile, wanted);
} catch (err) {
  process.stderr.write(`The web console could not be built: ${err instanceof Error ? err.message : String(err)}\n`);
  // On install a failed build must not fail the install; start and tests build again and fail loudly.
  process.exit(optional ? 0 : 1);
}

// The production image's /app without its dependencies: the manifests (npm ci --omit=dev installs
// from them), each built workspace's dist/ (no sources, declarations or build info) and the
// console's bundle. The Dockerfile's build stage writes it; infra/check-runtime-tree.sh runs it.
// Usage: node scripts/runtime-tree.mjs <empty target directory>
import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = process.argv[2];
if (!target) throw new Error('usage: node scripts/runtime-tree.mjs <target directory>');
if (existsSync(target) && readdirSync(target).length) throw new Error(`${target} is not empty`);

const shipped = (file) => !/\.d\.ts$|\.tsbuildinfo$/.test(file);
mkdirSync(target, { recursive: true });
for (const file of ['package.json', 'package-lock.json']) cpSync(join(root, file), join(target, file));
for (const group of ['packages', 'services']) {
  for (const name of readdirSync(join(root, group))) {
    const from = join(root, group, name);
    const to = join(target, group, name);
    if (!existsSync(join(from, 'package.json'))) continue;
    // Every workspace's manifest, built or not: npm ci checks the lockfile against all of them.
    mkdirSync(to, { recursive: true });
    cpSync(join(from, 'package.json'), join(to, 'package.json'));
    const built = existsSync(join(from, 'tsconfig.build.json')) || name === 'console';
    if (!built) continue;
    if (!existsSync(join(from, 'dist'))) throw new Error(`${group}/${name}/dist is missing: run npm run build first`);
    cpSync(join(from, 'dist'), join(to, 'dist'), { recursive: true, filter: shipped });
  }
}
process.stdout.write(`runtime tree written to ${target}\n`);

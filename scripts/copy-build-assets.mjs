// tsc emits JavaScript only: the files a built workspace reads beside its code at run time (the
// embedding thread's worker.mjs, the API docs page's script) are copied from src/ to dist/ here.
import { cpSync, existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

let copied = 0;
for (const group of ['packages', 'services']) {
  for (const name of readdirSync(join(root, group))) {
    const workspace = join(root, group, name);
    if (!existsSync(join(workspace, 'tsconfig.build.json'))) continue;
    for (const file of files(join(workspace, 'src')).filter((f) => !f.endsWith('.ts'))) {
      cpSync(file, join(workspace, 'dist', relative(join(workspace, 'src'), file)));
      copied += 1;
    }
  }
}
process.stdout.write(`copied ${copied} asset file(s) into dist/\n`);

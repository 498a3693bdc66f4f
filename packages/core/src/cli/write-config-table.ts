import fs from 'node:fs';
import path from 'node:path';
import { withConfigTable } from '../config-reference';

/**
 * npm run docs:config [-- docs/operations.md]: writes the configuration table, made from the config
 * schema, between its markers. `--check` writes nothing and fails when the committed table is stale.
 */
const check = process.argv.includes('--check');
const file = path.resolve(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'docs/operations.md');
const doc = fs.readFileSync(file, 'utf8');
const updated = withConfigTable(doc);
if (updated === doc) {
  process.stdout.write(`${path.relative(process.cwd(), file)}: the configuration table matches the schema\n`);
} else if (check) {
  process.stderr.write(`${path.relative(process.cwd(), file)}: the configuration table differs from the config schema; run npm run docs:config\n`);
  process.exit(1);
} else {
  fs.writeFileSync(file, updated);
  process.stdout.write(`wrote the configuration table in ${path.relative(process.cwd(), file)}\n`);
}

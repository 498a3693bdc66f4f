import fs from 'node:fs';
import path from 'node:path';
import { FILES, uncovered } from './entries';
import { generate } from './generate';

/**
 * `npm run sql`: writes packages/db/sql/<repository>.sql, the SQL of every repository function
 * (tools/sql/entries say how each is called). `--check` writes nothing and fails naming each file
 * that differs from what it would write (CI). Needs the PostgreSQL of the tests
 * (TEST_DATABASE_ADMIN_URL, by default postgres://postgres@127.0.0.1:5432/postgres); the database
 * it makes is dropped afterwards.
 */
const DIR = path.join(__dirname, '..', '..', 'sql');
const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function main(): Promise<number> {
  // Dates print the same wherever the generator runs.
  process.env.TZ = 'UTC';
  const check = process.argv.includes('--check');
  const missing = await uncovered();
  if (missing.length) {
    process.stderr.write(`packages/db/tools/sql/entries: no entry for ${missing.join(', ')}\n`);
    return 1;
  }
  const files = await generate(FILES, ADMIN_URL);
  const existing = fs.existsSync(DIR) ? fs.readdirSync(DIR).filter((f) => f.endsWith('.sql')) : [];
  if (check) {
    const stale = [...files].filter(([name, text]) => !fs.existsSync(path.join(DIR, name)) || fs.readFileSync(path.join(DIR, name), 'utf8') !== text).map(([name]) => name);
    const extra = existing.filter((name) => !files.has(name));
    for (const name of stale) process.stderr.write(`packages/db/sql/${name} is stale: run npm run sql\n`);
    for (const name of extra) process.stderr.write(`packages/db/sql/${name} has no repository: run npm run sql\n`);
    return stale.length || extra.length ? 1 : 0;
  }
  fs.mkdirSync(DIR, { recursive: true });
  for (const name of existing) if (!files.has(name)) fs.rmSync(path.join(DIR, name));
  for (const [name, text] of files) fs.writeFileSync(path.join(DIR, name), text);
  process.stdout.write(`packages/db/sql: ${files.size} files written\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`npm run sql: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);

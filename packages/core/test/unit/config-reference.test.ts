import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_VARIABLES } from '../../src/config';
import { CONFIG_TABLE_END, CONFIG_TABLE_START, renderConfigTable, withConfigTable } from '../../src/config-reference';

/** The configuration table of docs/operations.md against the config schema (npm run docs:check checks it too). */
const operations = fs.readFileSync(path.resolve(__dirname, '../../../../docs/operations.md'), 'utf8');

describe('the configuration table in docs/operations.md', () => {
  it('is the one generated from the config schema (npm run docs:config rewrites it)', () => {
    expect(withConfigTable(operations)).toBe(operations);
  });

  it('has one row per variable of the schema', () => {
    const rows = renderConfigTable().split('\n').slice(2);
    expect(rows.map((r) => /^\| `([A-Z0-9_]+)`/.exec(r)?.[1])).toEqual([...CONFIG_VARIABLES]);
  });

  it('is found stale when a row is missing or changed', () => {
    const withoutPort = operations.replace(/^\| `PORT` .*\n/m, '');
    expect(withoutPort).not.toBe(operations);
    expect(withConfigTable(withoutPort)).not.toBe(withoutPort);
    const wrongDefault = operations.replace(/^(\| `DB_POOL_MAX` \| [^|]+\| )`10`/m, '$1`20`');
    expect(wrongDefault).not.toBe(operations);
    expect(withConfigTable(wrongDefault)).toBe(operations);
  });

  it('refuses a document without its markers', () => {
    expect(() => withConfigTable(operations.replace(CONFIG_TABLE_START, ''))).toThrow(/markers are missing/);
    expect(() => withConfigTable(operations.replace(CONFIG_TABLE_END, ''))).toThrow(/markers are missing/);
  });
});

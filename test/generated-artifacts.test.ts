import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(__dirname, '..');
const run = promisify(execFile);

/**
 * The published document and the client's generated types are committed: this fails when either
 * is stale (fix: `npm run openapi && npm run generate -w @agent-memory/client`).
 */
describe('generated artifacts are up to date', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ams-generated-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('openapi.json is what `npm run openapi` writes now, and the client types are what openapi-typescript makes of it', async () => {
    const document = path.join(dir, 'openapi.json');
    await run(process.execPath, ['--import', 'tsx', 'services/api/src/openapi/cli/write-openapi.ts', document], { cwd: root });
    expect(fs.readFileSync(document, 'utf8')).toBe(fs.readFileSync(path.join(root, 'openapi.json'), 'utf8'));

    const types = path.join(dir, 'schema.ts');
    await run(process.execPath, [path.join(root, 'node_modules/openapi-typescript/bin/cli.js'), path.join(root, 'openapi.json'), '-o', types], { cwd: root });
    expect(fs.readFileSync(types, 'utf8')).toBe(fs.readFileSync(path.join(root, 'packages/client/src/generated/schema.ts'), 'utf8'));
  }, 120_000);
});

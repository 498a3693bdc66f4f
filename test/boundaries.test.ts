import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The boundary rules of `npm run lint` (.dependency-cruiser.cjs) on a throw-away tree laid out like
 * this repository: each deliberately wrong import must fail with its rule, the right one must pass.
 * The tree links the real node_modules, so @ams/* names resolve as they do in the repository.
 */
const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

const WRONG: Array<[file: string, code: string, rule: string]> = [
  ['packages/ingestion/src/driver.ts', "import type { Knex } from 'knex';\nexport type K = Knex;\n", 'database-driver-outside-db'],
  ['services/api/src/other-service.ts', "export * from '@ams/embedding-worker/src/main';\n", 'service-imports-service'],
  ['packages/text/src/uses-service.ts', "export { createApp } from '@ams/api';\n", 'package-imports-service'],
  ['services/api/src/internals.ts', "export * from '@ams/db/src/knex';\n", 'workspace-internals'],
  ['services/api/src/their-tests.ts', "export * from '@ams/core/test/unit/config.test';\n", 'workspace-internals'],
  ['services/api/src/relative.ts', "export * from '../../../packages/text/src/index';\n", 'workspace-by-relative-path'],
  ['services/api/test/climbs.ts', "export * from '../../../packages/text/test/helper';\n", 'workspace-by-relative-path'],
  ['bench/relative.ts', "export * from '../packages/text/src/index';\n", 'root-by-relative-path'],
  ['packages/text/src/test-support.ts', "export * from '@ams/testing';\n", 'production-imports-tests'],
  ['packages/text/src/undeclared.ts', "export * from 'winston';\n", 'undeclared-dependency'],
  ['services/api/src/services/sessions.service.ts', "export { loadConfig } from '@ams/core';\n", 'api-holds-domain-rules'],
  ['services/api/src/routes/sessions.router.ts', "export { sessionsRepository } from '@ams/db';\n", 'http-calls-repositories'],
  ['packages/knowledge/src/speaks-http.ts', "export { Router } from 'express';\n", 'domain-speaks-http'],
  ['packages/text/src/uses-domain.ts', "export * from '@ams/knowledge';\n", 'foundation-imports-domain'],
];

const RIGHT: Array<[file: string, code: string]> = [
  ['services/api/src/right.ts', "export { loadConfig } from '@ams/core';\nexport { memoriesRepository, type Knex } from '@ams/db';\n"],
  ['packages/text/src/index.ts', "export * from './own';\n"],
  ['packages/text/src/own.ts', 'export const own = 1;\n'],
  ['packages/text/test/helper.ts', "export * from '../src/own';\n"],
  ['services/api/src/routes/typed.ts', "import type { Cursor } from '@ams/db';\nexport type C = Cursor;\n"],
];

const MANIFESTS: Record<string, string[]> = {
  'services/api': ['@ams/core', '@ams/db', '@ams/embedding-worker', '@ams/testing'],
  'packages/text': ['@ams/api', '@ams/knowledge', '@ams/testing'],
  'packages/knowledge': ['express'],
  'packages/ingestion': ['knex'],
};

function write(root: string, file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), text);
}

interface Violation {
  from: string;
  rule: { name: string };
}

describe('boundary rules (npm run lint)', () => {
  let root: string;
  let violations: Violation[];
  let exitCode: number;

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'ams-boundaries-'));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
    write(root, 'package.json', JSON.stringify({ name: 'fixture', private: true, workspaces: ['packages/*', 'services/*'] }));
    write(root, 'tsconfig.json', JSON.stringify({ compilerOptions: { module: 'commonjs', moduleResolution: 'node' } }));
    write(root, 'services/embedding-worker/package.json', '{"name":"@ams/embedding-worker"}');
    for (const [dir, deps] of Object.entries(MANIFESTS)) {
      write(root, `${dir}/package.json`, JSON.stringify({ name: `@fixture/${path.basename(dir)}`, dependencies: Object.fromEntries(deps.map((d) => [d, '*'])) }));
    }
    for (const [file, code] of [...WRONG, ...RIGHT]) write(root, file, code);
    const cruise = (extra: string[]) =>
      execFileSync(process.execPath, [CLI, '--config', path.join(ROOT, '.dependency-cruiser.cjs'), ...extra, 'packages', 'services', 'bench'], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    violations = JSON.parse(cruise(['--output-type', 'json'])).summary.violations;
    // The lint script's own reporter: it exits non-zero on any error.
    try {
      cruise([]);
      exitCode = 0;
    } catch (err) {
      exitCode = (err as { status: number }).status;
    }
  }, 60_000);

  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('fails the lint run', () => {
    expect(exitCode).not.toBe(0);
  });

  it.each(WRONG)('%s fails with its rule', (file, _code, rule) => {
    expect(violations.filter((v) => v.from === file).map((v) => v.rule.name)).toContain(rule);
  });

  it('lets a workspace import another by name and entry, and its own files and tests', () => {
    const rightFiles = new Set(RIGHT.map(([f]) => f));
    expect(violations.filter((v) => rightFiles.has(v.from))).toEqual([]);
  });
});

/**
 * The workspace graph (.dependency-cruiser.workspaces.cjs) on a throw-away tree of three workspaces
 * linked by name as npm links them: alpha and beta need each other, though no file-level cycle
 * exists (alpha's entry imports beta's; another file of beta imports alpha's). gamma needs alpha only.
 */
describe('workspace cycles (npm run lint)', () => {
  let root: string;
  let violations: Violation[];
  let exitCode: number;

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'ams-workspace-cycle-'));
    write(root, 'package.json', JSON.stringify({ name: 'fixture', private: true, workspaces: ['packages/*'] }));
    write(root, 'tsconfig.json', JSON.stringify({ compilerOptions: { module: 'commonjs', moduleResolution: 'node' } }));
    const workspace = (name: string, deps: string[], files: Record<string, string>) => {
      write(root, `packages/${name}/package.json`, JSON.stringify({ name: `@fx/${name}`, main: 'src/index.ts', dependencies: Object.fromEntries(deps.map((d) => [`@fx/${d}`, '*'])) }));
      for (const [file, code] of Object.entries(files)) write(root, `packages/${name}/src/${file}`, code);
      fs.mkdirSync(path.join(root, 'node_modules/@fx'), { recursive: true });
      fs.symlinkSync(`../../packages/${name}`, path.join(root, `node_modules/@fx/${name}`), 'dir');
    };
    workspace('alpha', ['beta'], { 'index.ts': "export { beta } from '@fx/beta';\nexport const alpha = 1;\n" });
    workspace('beta', ['alpha'], { 'index.ts': 'export const beta = 2;\n', 'uses-alpha.ts': "import { alpha } from '@fx/alpha';\nexport const both = alpha + 1;\n" });
    workspace('gamma', ['alpha'], { 'index.ts': "export { alpha } from '@fx/alpha';\n" });
    const cruise = (extra: string[]) =>
      execFileSync(process.execPath, [CLI, '--config', path.join(ROOT, '.dependency-cruiser.workspaces.cjs'), ...extra, 'packages'], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    violations = JSON.parse(cruise(['--output-type', 'json'])).summary.violations;
    try {
      cruise([]);
      exitCode = 0;
    } catch (err) {
      exitCode = (err as { status: number }).status;
    }
  }, 60_000);

  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('fails the lint run on a cycle between two workspaces that no file-level cycle shows', () => {
    expect(exitCode).not.toBe(0);
    expect(violations.map((v) => [v.from, v.rule.name]).sort()).toEqual([
      ['packages/alpha/src', 'workspace-cycle'],
      ['packages/beta/src', 'workspace-cycle'],
    ]);
  });
});

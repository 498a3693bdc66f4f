/**
 * The architecture, enforced by `npm run lint` (dependency-cruiser over the resolved imports).
 * Workspaces are packages/<name> (libraries, @ams/<name>) and services/<name> (processes, @ams/<name>).
 * Symlinks are kept, so an import by package name resolves to node_modules/@ams/<name>/… and one by
 * relative path to packages|services/<name>/…: between workspaces only the first, and only the entry.
 * packages/testing is test-only: it may import @ams/api, because the test app is the API app.
 */
const fs = require('node:fs');
const path = require('node:path');

const SERVICES = fs.readdirSync(path.join(__dirname, 'services')).join('|');
const BY_NAME_SERVICE = `^node_modules/@ams/(${SERVICES})/`;
/**
 * A workspace's entry points: src/index.ts, plus the subpaths its package.json "exports" names (as
 * sources: the "default" condition; "ams-dist" names the built files production runs).
 */
const exported = (dir) => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, dir, 'package.json'), 'utf8'));
  const source = (target) => (typeof target === 'string' ? target : target.default);
  return Object.values(pkg.exports ?? {}).map((target) => `node_modules/@ams/${path.basename(dir)}/${path.normalize(source(target))}`);
};
const WORKSPACES = ['packages', 'services'].flatMap((root) => fs.readdirSync(path.join(__dirname, root)).map((name) => `${root}/${name}`));
/** The layers of packages/: the foundation below, the domain (each holding one area's rules) above it. */
const FOUNDATION = 'core|vocabulary|text|db|embeddings|jobs';
const DOMAIN = 'accounts|entities|ingestion|knowledge|memories|portability|vectors|webhooks';
const ENTRY = ['^node_modules/@ams/[^/]+/src/index\\.ts$', ...WORKSPACES.flatMap(exported).map((p) => `^${p.replace(/[.]/g, '\\.')}$`)].join('|');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'service-imports-service',
      comment: 'A service (a process) never imports another service; shared code belongs in packages/.',
      severity: 'error',
      from: { path: '^services/([^/]+)/' },
      to: { path: [BY_NAME_SERVICE, '^services/'], pathNot: ['^node_modules/@ams/$1/', '^services/$1/'] },
    },
    {
      name: 'package-imports-service',
      comment: 'Libraries never depend on processes. packages/testing is the exception: its test app is the API app.',
      severity: 'error',
      from: { path: '^packages/', pathNot: '^packages/testing/' },
      to: { path: [BY_NAME_SERVICE, '^services/'] },
    },
    {
      name: 'api-holds-domain-rules',
      comment:
        'services/api holds HTTP only: routes and their schemas, middleware, MCP, OpenAPI, validation and the process (lib/, top-level files). ' +
        "Domain rules live in the packages (@ams/accounts, knowledge, entities, memories, portability, vectors, webhooks); a folder for them here (the old services/) is refused.",
      severity: 'error',
      from: { path: '^services/api/src/', pathNot: '^services/api/src/((routes|middleware|mcp|openapi|validation|lib)/|[^/]+$)' },
      to: {},
    },
    {
      name: 'http-calls-repositories',
      comment: 'Routes and MCP tools call the domain packages, never a repository: they take only types from @ams/db.',
      severity: 'error',
      from: { path: '^services/api/src/(routes|mcp)/' },
      to: { path: '^node_modules/@ams/db/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-speaks-http',
      comment: 'The domain packages know nothing of HTTP: no express, joi or MCP (the API validates and hands them typed input).',
      severity: 'error',
      from: { path: `^packages/(${DOMAIN})/` },
      to: { path: '^node_modules/(express|express-rate-limit|joi|joi-to-json|supertest|swagger-ui-dist|@modelcontextprotocol)/' },
    },
    {
      name: 'foundation-imports-domain',
      comment: 'Layers: the foundation (core, vocabulary, text, db, embeddings, jobs) never imports the domain packages above it.',
      severity: 'error',
      from: { path: `^packages/(${FOUNDATION})/` },
      to: { path: `^node_modules/@ams/(${DOMAIN}|metrics)/` },
    },
    {
      name: 'database-driver-outside-db',
      comment:
        "knex and the database drivers are packages/db's business; others take its types (Knex, Db) from @ams/db. The benches may open a driver's connection of their own: a limit is timed on one, never through the service's pool.",
      severity: 'error',
      from: { pathNot: ['^packages/db/', '^bench/'] },
      to: { path: '^node_modules/(knex|knex-pglite|pg|@electric-sql/pglite[^/]*)/' },
    },
    {
      name: 'workspace-internals',
      comment: 'Another workspace is reached only through its entry (src/index.ts), never its other files or its tests.',
      severity: 'error',
      from: {},
      // A path the workspace's "exports" does not name does not resolve at all: caught here too.
      to: { path: ['^node_modules/@ams/', '^@ams/[^/]+/.'], pathNot: ENTRY },
    },
    {
      name: 'workspace-by-relative-path',
      comment: 'Another workspace is imported by its package name (@ams/<name>), never by a relative path.',
      severity: 'error',
      from: { path: '^(packages|services)/([^/]+)/' },
      to: { path: '^(packages|services)/', pathNot: '^$1/$2/' },
    },
    {
      name: 'root-by-relative-path',
      comment: 'Root tests, benches and scripts use workspaces by package name too.',
      severity: 'error',
      from: { pathNot: '^(packages|services)/' },
      to: { path: '^(packages|services)/' },
    },
    {
      name: 'production-imports-tests',
      comment: 'Production code (src/) never imports test code or the test-only @ams/testing.',
      severity: 'error',
      from: { path: '^(packages|services)/[^/]+/src/', pathNot: '^packages/testing/' },
      to: { path: ['/test/', '^node_modules/@ams/testing/'] },
    },
    {
      name: 'undeclared-dependency',
      comment: 'Every package a file imports (@ams/* included) is declared in its closest package.json.',
      severity: 'error',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'unresolvable',
      comment: 'An import that resolves to nothing is a typo or a missing dependency.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    preserveSymlinks: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(data|models|coverage|dist|\\.cache)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    skipAnalysisNotInRules: true,
    // Workspaces publish subpaths through package.json "exports" (e.g. @ams/memories/worker).
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['require', 'node', 'default'] },
  },
};

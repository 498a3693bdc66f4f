/**
 * The workspace graph, enforced by `npm run lint` beside .dependency-cruiser.cjs: no two workspaces
 * depend on each other, directly or through others, even when no file-level cycle exists (a file of
 * A imports B while another file of B imports A). Symlinks are resolved here, so an import by package
 * name lands in packages|services/<name>/src, and each workspace's src folder is one node of the
 * folder graph. A workspace's entry files sit at the top of src, so every edge between workspaces
 * is an edge between two src folders.
 */
const WORKSPACE_SRC = '^(packages|services)/[^/]+/src$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'workspace-cycle',
      comment: 'Workspaces form a tree: move what both sides need into a leaf package (as @ams/vocabulary holds the domain words).',
      severity: 'error',
      scope: 'folder',
      from: { path: WORKSPACE_SRC },
      to: { path: WORKSPACE_SRC, circular: true },
    },
  ],
  options: {
    preserveSymlinks: false,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(data|models|coverage|dist|\\.cache)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['require', 'node', 'default'] },
  },
};

import fs from 'node:fs';
import path from 'node:path';
import { describeApi } from '../describe-app';

/** npm run openapi [-- out.json]: writes the document for publishing; fails on routes without docs. */
const out = path.resolve(process.argv[2] ?? 'openapi.json');
const { document, undocumented, unknown } = describeApi();
if (undocumented.length || unknown.length) {
  process.stderr.write(
    [
      ...undocumented.map((r) => `route without a route doc: ${r}`),
      ...unknown.map((r) => `route doc naming no route: ${r}`),
    ].join('\n') + '\n',
  );
  process.exit(1);
}
fs.writeFileSync(out, JSON.stringify(document, null, 2) + '\n');
process.stdout.write(`wrote ${out} (${Object.keys(document.paths).length} paths)\n`);

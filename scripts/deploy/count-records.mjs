// Records of an export (NDJSON) by type, header left out, as one line of JSON: how the deploy test
// compares two exports. Usage: node scripts/deploy/count-records.mjs <file.ndjson>
import fs from 'node:fs';

const counts = {};
for (const line of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const { type } = JSON.parse(line);
  if (type !== 'header') counts[type] = (counts[type] ?? 0) + 1;
}
console.log(JSON.stringify(Object.fromEntries(Object.entries(counts).sort())));

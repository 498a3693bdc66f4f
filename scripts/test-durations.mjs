// Writes test/durations.json (test/sequencer.js's order on a machine without jest's cache) from the
// log of a full `npm test`: jest prints `PASS <project> <path> (<seconds> s)` for every file that took
// over a second. Usage: npm test 2>&1 | tee /tmp/test.log; node scripts/test-durations.mjs < /tmp/test.log
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const line = /^(?:PASS|FAIL) (integration \(pglite\)|processes \(pglite\)|integration|processes|unit) (\S+) \((\d+(?:\.\d+)?) s/;
const seconds = {};
for (const text of fs.readFileSync(0, 'utf8').split('\n')) {
  const m = line.exec(text.trim());
  if (m) seconds[`${m[1]} ${m[2]}`] = Math.round(Number(m[3]));
}
const sorted = Object.fromEntries(Object.entries(seconds).sort((a, b) => b[1] - a[1]));
fs.writeFileSync(path.join(root, 'test/durations.json'), `${JSON.stringify(sorted, null, 1)}\n`);
process.stdout.write(`test/durations.json: ${Object.keys(sorted).length} files\n`);

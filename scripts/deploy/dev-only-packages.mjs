// The installed paths that only development needs: the lockfile's entries marked `dev` (reached
// only through devDependencies). The deploy test checks that none is in the image's /app.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
for (const [where, entry] of Object.entries(lock.packages)) if (entry.dev && where.includes('node_modules/')) console.log(where);

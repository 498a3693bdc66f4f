import fs from 'node:fs';
import path from 'node:path';

export const BOOTSTRAP_KEY_FILE = 'admin-api-key.txt';

interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

/**
 * Hands the first-start admin key to the operator. On a terminal it is printed once. Otherwise stdout
 * is usually captured into logs, so the key goes to a file only the owner can read, and only that
 * file's path is printed. Returns the file written, if any.
 */
export function announceBootstrapKey(key: string, opts: { baseUrl: string; dataDir: string; out?: Output }): string | undefined {
  const out = opts.out ?? process.stdout;
  const tryIt = `curl -H "Authorization: Bearer ${key}" ${opts.baseUrl}/v1/api-keys`;
  if (out.isTTY) {
    out.write(
      ['', '  First start: an admin API key was created. It is shown only this once; keep it safe.', '', `    ${key}`, '', '  Try it:', `    ${tryIt}`, ''].join('\n') + '\n',
    );
    return undefined;
  }
  fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const text = `${key}\n\n# Try it:\n# ${tryIt}\n# Delete this file once the key is stored elsewhere.\n`;
  let file = path.resolve(opts.dataDir, BOOTSTRAP_KEY_FILE);
  // 'wx': never overwrite a key file an earlier start left (that store was emptied since); 0600: the owner only.
  try {
    fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    file = path.resolve(opts.dataDir, BOOTSTRAP_KEY_FILE.replace('.txt', `.${Date.now()}.txt`));
    fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
  }
  out.write(`First start: an admin API key was created and written to ${file} (readable by this user only). Store it elsewhere, then delete the file.\n`);
  return file;
}

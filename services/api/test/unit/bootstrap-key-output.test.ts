import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { announceBootstrapKey, BOOTSTRAP_KEY_FILE } from '../../src/lib/bootstrap-key-output';

describe('the first-start admin key', () => {
  const key = 'mem_' + 'k'.repeat(40);
  let dir: string;
  let written: string;
  const out = (isTTY: boolean) => ({ isTTY, write: (s: string) => (written += s) });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ams-boot-'));
    written = '';
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is printed on a terminal and written nowhere', () => {
    expect(announceBootstrapKey(key, { baseUrl: 'http://127.0.0.1:8080', dataDir: dir, out: out(true) })).toBeUndefined();
    expect(written).toContain(key);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('goes to an owner-only file when stdout is not a terminal (captured logs), and only the path is printed', () => {
    const file = announceBootstrapKey(key, { baseUrl: 'http://127.0.0.1:8080', dataDir: dir, out: out(false) })!;
    expect(file).toBe(path.join(dir, BOOTSTRAP_KEY_FILE));
    expect(written).not.toContain(key);
    expect(written).toContain(file);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]).toBe(key);
  });

  it('never overwrites a key file an earlier start left', () => {
    fs.writeFileSync(path.join(dir, BOOTSTRAP_KEY_FILE), 'earlier');
    const file = announceBootstrapKey(key, { baseUrl: 'x', dataDir: dir, out: out(false) })!;
    expect(fs.readFileSync(path.join(dir, BOOTSTRAP_KEY_FILE), 'utf8')).toBe('earlier');
    expect(file).not.toBe(path.join(dir, BOOTSTRAP_KEY_FILE));
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]).toBe(key);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeDataDirPrivate } from '../../src/private-data-dir';

const mode = (p: string) => fs.lstatSync(p).mode & 0o777;

describe('makeDataDirPrivate', () => {
  let root: string;
  let umask: number;
  beforeEach(() => {
    umask = process.umask();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'ams-private-'));
  });
  afterEach(() => {
    process.umask(umask);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('creates a missing DATA_DIR 0700 and leaves the process umask 077', () => {
    const dir = path.join(root, 'a', 'data');
    expect(makeDataDirPrivate(dir)).toEqual({ exposed: 0, unfixable: [] });
    expect(mode(dir)).toBe(0o700);
    expect(process.umask()).toBe(0o077);
  });

  it('makes directories 0700 and files 0600, counting only what other users could reach', () => {
    const dir = path.join(root, 'data');
    fs.mkdirSync(path.join(dir, 'base', '1'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'base', '1', 'open'), 'x');
    fs.writeFileSync(path.join(dir, 'owner-exec'), 'x');
    fs.chmodSync(dir, 0o755);
    fs.chmodSync(path.join(dir, 'base'), 0o777);
    fs.chmodSync(path.join(dir, 'base', '1'), 0o700);
    fs.chmodSync(path.join(dir, 'base', '1', 'open'), 0o666);
    fs.chmodSync(path.join(dir, 'owner-exec'), 0o700); // what PGlite makes under umask 077: private already
    const outside = path.join(root, 'outside');
    fs.writeFileSync(outside, 'x', { mode: 0o644 });
    fs.symlinkSync(outside, path.join(dir, 'link'));

    expect(makeDataDirPrivate(dir)).toEqual({ exposed: 3, unfixable: [] });
    expect([dir, path.join(dir, 'base'), path.join(dir, 'base', '1')].map(mode)).toEqual([0o700, 0o700, 0o700]);
    expect([path.join(dir, 'base', '1', 'open'), path.join(dir, 'owner-exec')].map(mode)).toEqual([0o600, 0o600]);
    // A link is not followed out of DATA_DIR.
    expect(mode(outside)).toBe(0o644);
    expect(makeDataDirPrivate(dir)).toEqual({ exposed: 0, unfixable: [] });
  });
});

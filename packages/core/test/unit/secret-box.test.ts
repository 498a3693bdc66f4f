import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, secretBoxFor, SecretBox } from '../../src';

describe('SecretBox', () => {
  const key = crypto.randomBytes(32);
  const box = new SecretBox(key);

  it('seals to text that does not contain the secret and opens it again', () => {
    const sealed = box.seal('s3cret-value', 'account-1');
    expect(sealed).not.toContain('s3cret');
    expect(box.open(sealed, 'account-1')).toBe('s3cret-value');
    expect(box.isCurrent(sealed)).toBe(true);
  });

  it('does not open a value moved to another owner or tampered with', () => {
    const sealed = box.seal('s3cret-value', 'account-1');
    expect(() => box.open(sealed, 'account-2')).toThrow();
    const parts = sealed.split(':');
    parts[4] = Buffer.from('x' + Buffer.from(parts[4]!, 'base64').toString('latin1'), 'latin1').toString('base64');
    expect(() => box.open(parts.join(':'), 'account-1')).toThrow();
  });

  it('opens values sealed by a previous key during a rotation, and names a missing key', () => {
    const old = box.seal('old', 'a');
    const rotated = new SecretBox(crypto.randomBytes(32), [key]);
    expect(rotated.open(old, 'a')).toBe('old');
    expect(rotated.isCurrent(old)).toBe(false);
    expect(() => new SecretBox(crypto.randomBytes(32)).open(old, 'a')).toThrow(/WEBHOOK_SECRET_KEY/);
  });

  it('without WEBHOOK_SECRET_KEY, makes one owner-only key file under DATA_DIR and reuses it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ams-key-'));
    try {
      const env = { DATA_DIR: dir, WEBHOOK_SECRET_KEY: '' };
      const sealed = secretBoxFor(loadConfig(env)).seal('x', 'a');
      const file = path.join(dir, 'webhook-secret.key');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(secretBoxFor(loadConfig(env)).open(sealed, 'a')).toBe('x'); // a second process, same file
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a key that is not 32 bytes of base64, naming the variable', () => {
    expect(() => loadConfig({ WEBHOOK_SECRET_KEY: 'short' })).toThrow(/WEBHOOK_SECRET_KEY/);
    expect(() => loadConfig({ WEBHOOK_SECRET_KEYS_PREVIOUS: `${key.toString('base64')},nope` })).toThrow(/WEBHOOK_SECRET_KEYS_PREVIOUS/);
  });
});

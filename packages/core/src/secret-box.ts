import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config';

const PREFIX = 'v1';
const KEY_FILE = 'webhook-secret.key';

const keyId = (key: Buffer) => crypto.createHash('sha256').update(key).digest('hex').slice(0, 8);

/**
 * Authenticated encryption (AES-256-GCM) of small secrets at rest. A sealed value names the key that
 * sealed it (`v1:<key id>:<iv>:<tag>:<ciphertext>`), so previous keys keep opening old rows during a
 * rotation; `aad` binds a value to its owner, so a ciphertext copied to another row does not open.
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();
  readonly currentKeyId: string;

  constructor(
    private readonly current: Buffer,
    previous: Buffer[] = [],
  ) {
    this.currentKeyId = keyId(current);
    for (const k of [current, ...previous]) this.keys.set(keyId(k), k);
  }

  seal(plain: string, aad: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.current, iv).setAAD(Buffer.from(aad, 'utf8'));
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [PREFIX, this.currentKeyId, iv.toString('base64'), cipher.getAuthTag().toString('base64'), ct.toString('base64')].join(':');
  }

  open(sealed: string, aad: string): string {
    const [prefix, kid, iv, tag, ct] = sealed.split(':');
    const key = kid === undefined ? undefined : this.keys.get(kid);
    if (prefix !== PREFIX || !key || !iv || !tag || ct === undefined) {
      throw new Error(`cannot open a sealed secret: key ${kid ?? '?'} is not configured (WEBHOOK_SECRET_KEY / WEBHOOK_SECRET_KEYS_PREVIOUS)`);
    }
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64')).setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64')), decipher.final()]).toString('utf8');
  }

  /** Sealed with the current key: nothing to re-encrypt. */
  isCurrent(sealed: string): boolean {
    return sealed.split(':')[1] === this.currentKeyId;
  }
}

/**
 * The key file used when WEBHOOK_SECRET_KEY is unset: made once (owner-only) under DATA_DIR. Created
 * through a hard link so processes starting together agree on one key.
 */
function keyFromDataDir(dataDir: string): Buffer {
  const file = path.join(dataDir, KEY_FILE);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${crypto.randomUUID()}`;
    fs.writeFileSync(tmp, crypto.randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
}

const boxes = new WeakMap<Config, SecretBox>();

/** The process's SecretBox for webhook secrets: from WEBHOOK_SECRET_KEY, else the key file in DATA_DIR. */
export function secretBoxFor(config: Config): SecretBox {
  let box = boxes.get(config);
  if (!box) {
    const s = config.secrets;
    box = new SecretBox(s.webhookSecretKey ?? keyFromDataDir(config.dataDir), s.previousWebhookSecretKeys);
    boxes.set(config, box);
  }
  return box;
}

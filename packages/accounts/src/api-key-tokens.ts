import crypto from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_BODY_LENGTH = 40;

/** `mem_` + 40 base62 characters (~238 bits), drawn without modulo bias. */
export function generateApiKey(): string {
  let body = '';
  while (body.length < KEY_BODY_LENGTH) {
    for (const byte of crypto.randomBytes(64)) {
      if (byte < 248 && body.length < KEY_BODY_LENGTH) body += BASE62[byte % 62];
    }
  }
  return `mem_${body}`;
}

export const hashApiKey = (key: string): string => crypto.createHash('sha256').update(key).digest('hex');

/** The first characters shown in listings so a user can tell keys apart; never enough to use. */
export const keyPrefix = (key: string): string => key.slice(0, 12);

export function hashesEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && crypto.timingSafeEqual(ba, bb);
}

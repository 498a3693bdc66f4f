import crypto from 'node:crypto';
import { hashApiKey, hashesEqual } from '../api-key-tokens';

/** Codes, tokens and the browser binding: 256 random bits behind a prefix that says what each is. */
export const OAUTH_PREFIX = { code: 'mac_', access: 'mat_', refresh: 'mrt_', clientSecret: 'mcs_', browser: 'mab_' } as const;

export const randomSecret = (prefix: string): string => prefix + crypto.randomBytes(32).toString('base64url');

/** Only hashes are stored: a database read does not hand out a usable token. */
export const hashSecret = hashApiKey;
export const secretMatches = (presented: string, storedHash: string): boolean => hashesEqual(hashSecret(presented), storedHash);

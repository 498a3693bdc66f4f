import crypto from 'node:crypto';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { accountsRepository } from '@ams/db';
import type { AccountDeps } from '../deps';
import { GRANTABLE_SCOPES } from './authorization.service';
import type { AccessCheck } from './tokens.service';

export interface ExternalIssuerSettings {
  issuer: string;
  audience: string;
  /** The claim whose value is the account's email. */
  accountClaim: string;
  /** The claim holding the scopes: a space-separated string or an array. */
  scopesClaim: string;
}

/** Asymmetric signatures only: a shared-secret (HS*) or unsigned token is never taken from a provider. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** A stable uuid for one (issuer, subject): what rate limits, write fences and history name, as a key's id. */
function subjectId(issuer: string, subject: string): string {
  const h = crypto.createHash('sha256').update(`${issuer}\n${subject}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function scopesOf(payload: JWTPayload, claim: string): string[] {
  const raw = payload[claim];
  const values = typeof raw === 'string' ? raw.split(/\s+/) : Array.isArray(raw) ? raw.filter((s): s is string => typeof s === 'string') : [];
  return [...new Set(values.filter((s) => (GRANTABLE_SCOPES as readonly string[]).includes(s)))];
}

/**
 * Checks JWTs of an external OpenID Connect provider: its discovery document names its JWKS, whose
 * keys jose fetches and caches (a new key id fetches them again, so the provider's key rotation
 * needs nothing here). Signature, issuer, audience and expiry are checked; the account is the one
 * whose email is the account claim's value; the scopes come from the scopes claim.
 */
export class ExternalIssuer {
  private keys?: Promise<{ issuer: string; jwks: JWTVerifyGetKey }>;
  /** jose is ESM-only: loaded when a provider is first used, so nothing else depends on loading it. */
  private readonly jose = import('jose');

  constructor(private readonly settings: ExternalIssuerSettings) {}

  private discover(): Promise<{ issuer: string; jwks: JWTVerifyGetKey }> {
    this.keys ??= (async () => {
      const res = await fetch(`${this.settings.issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(10_000) });
      if (!res.ok) throw new Error(`OIDC discovery at ${this.settings.issuer} answered ${res.status}`);
      const doc = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
      if (typeof doc.jwks_uri !== 'string' || typeof doc.issuer !== 'string') throw new Error(`OIDC discovery at ${this.settings.issuer} names no issuer or jwks_uri`);
      if (doc.issuer.replace(/\/$/, '') !== this.settings.issuer) throw new Error(`OIDC discovery at ${this.settings.issuer} names another issuer (${doc.issuer})`);
      return { issuer: doc.issuer, jwks: (await this.jose).createRemoteJWKSet(new URL(doc.jwks_uri)) };
    })().catch((err: unknown) => {
      // Tried again at the next token: the provider may be back.
      this.keys = undefined;
      throw err;
    });
    return this.keys;
  }

  /** Failures of the provider itself (unreachable, bad discovery) throw; a bad token is a failure. */
  async check(deps: AccountDeps, token: string): Promise<AccessCheck> {
    if (token.length > 16_384 || token.split('.').length !== 3) return { failure: 'invalid' };
    const { issuer, jwks } = await this.discover();
    const { jwtVerify, errors: joseErrors } = await this.jose;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, { issuer, audience: this.settings.audience, algorithms: ALGORITHMS, clockTolerance: 5, requiredClaims: ['exp', 'sub'] }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) return { failure: 'expired' };
      if (err instanceof joseErrors.JOSEError) return { failure: 'invalid' };
      throw err;
    }
    const email = payload[this.settings.accountClaim];
    if (typeof email !== 'string' || (this.settings.accountClaim === 'email' && payload.email_verified === false)) return { failure: 'invalid' };
    const account = await accountsRepository.findByEmail(deps.db, email);
    if (!account) return { failure: 'invalid' };
    return {
      auth: { accountId: account.id, keyId: subjectId(issuer, payload.sub!), scopes: scopesOf(payload, this.settings.scopesClaim), agentId: null },
      clientId: typeof payload.azp === 'string' ? payload.azp : typeof payload.client_id === 'string' ? payload.client_id : 'external',
      expiresAt: payload.exp!,
      resource: this.settings.audience,
    };
  }
}

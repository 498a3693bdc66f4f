import type { ApiKeyRow, Knex } from '@ams/db';

const MAX_ENTRIES = 10_000;

/**
 * API key rows by key hash, as last read from the database, so an authenticated request can skip
 * its lookup. Only keys that authenticated are kept (an unknown key is read every time), and a
 * row is never refreshed by use: it is read again once older than the caller's bound
 * (API_KEY_CACHE_MS). A key revoked through this process is evicted at once; another process
 * sees the revocation within that bound. Expiry is checked on every use from the row itself.
 */
export class ApiKeyCache {
  private readonly rows = new Map<string, { row: ApiKeyRow; readAt: number }>();
  /** When keys were revoked here: a read that started before then must not be cached. */
  private readonly revokedAt = new Map<string, number>();

  get(hash: string, maxAgeMs: number): ApiKeyRow | undefined {
    const hit = this.rows.get(hash);
    if (!hit) return undefined;
    if (Date.now() - hit.readAt < maxAgeMs) return hit.row;
    this.rows.delete(hash);
    return undefined;
  }

  /** `readAt`: when the row was read (taken before the query, so the bound holds). */
  set(hash: string, row: ApiKeyRow, readAt: number): void {
    if ((this.revokedAt.get(row.id) ?? -Infinity) >= readAt) return;
    this.rows.delete(hash);
    // Oldest first: a Map keeps insertion order.
    if (this.rows.size >= MAX_ENTRIES) this.rows.delete(this.rows.keys().next().value!);
    this.rows.set(hash, { row, readAt });
  }

  evictKey(accountId: string, keyId: string): void {
    if (this.revokedAt.size >= MAX_ENTRIES) this.revokedAt.clear();
    this.revokedAt.set(keyId, Date.now());
    for (const [hash, { row }] of this.rows) if (row.id === keyId && row.account_id === accountId) this.rows.delete(hash);
  }
}

// One cache per database handle: every app in this process over the same pool shares revocations.
const caches = new WeakMap<Knex, ApiKeyCache>();

export function apiKeyCacheFor(db: Knex): ApiKeyCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new ApiKeyCache()));
  return cache;
}

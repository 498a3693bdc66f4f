import type { Knex } from 'knex';

const MAX_ENTRIES = 10_000;
/** AGENT_CACHE_MS's default, for a database opened without it (tests, tools). */
const DEFAULT_MAX_AGE_MS = 10_000;

interface Entry {
  id: string;
  readAt: number;
}

/**
 * The live agent an agent reference (a name, a client key or an id) of an account resolved to, as
 * last read, so a create or a search naming its agent skips that lookup. Never refreshed by use: an
 * entry is read again once older than AGENT_CACHE_MS. An agent renamed or deleted through this
 * process is forgotten at once; another process follows within the bound. A create never relies on
 * an entry alone: its INSERT names the agent through live_agent() and refuses the row when the
 * agent has been deleted meanwhile (memoriesRepository, isAgentGone), and the create then looks
 * its agent up afresh.
 */
export class AgentIdCache {
  private readonly entries = new Map<string, Entry>();
  /** When agents were forgotten here: a read that started before then must not be cached. */
  private readonly forgottenAt = new Map<string, number>();

  constructor(readonly maxAgeMs: number) {}

  get(accountId: string, ref: string): string | undefined {
    const key = `${accountId}/${ref}`;
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (Date.now() - hit.readAt < this.maxAgeMs) return hit.id;
    this.entries.delete(key);
    return undefined;
  }

  /** `readAt`: when the lookup started (taken before the query, so the bound holds). */
  set(accountId: string, ref: string, id: string, readAt: number): void {
    if (this.maxAgeMs === 0) return;
    if ((this.forgottenAt.get(id) ?? -Infinity) >= readAt || (this.forgottenAt.get(accountId) ?? -Infinity) >= readAt) return;
    const key = `${accountId}/${ref}`;
    this.entries.delete(key);
    // Oldest first: a Map keeps insertion order.
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { id, readAt });
  }

  /** An agent renamed or deleted: every reference to it is read again. */
  forgetAgent(accountId: string, agentId: string): void {
    this.remember(agentId);
    for (const [key, e] of this.entries) if (e.id === agentId && key.startsWith(`${accountId}/`)) this.entries.delete(key);
  }

  /** Every reference of an account is read again (a create found one of them stale). */
  forgetAccount(accountId: string): void {
    this.remember(accountId);
    for (const key of this.entries.keys()) if (key.startsWith(`${accountId}/`)) this.entries.delete(key);
  }

  private remember(id: string): void {
    if (this.forgottenAt.size >= MAX_ENTRIES) this.forgottenAt.clear();
    this.forgottenAt.set(id, Date.now());
  }
}

/** One cache per database (its knex config: a transaction shares its pool's). */
const caches = new WeakMap<object, AgentIdCache>();
const configOf = (db: Knex): object => (db.client as Knex.Client).config;

/** Sets the bound of `db`'s cache (AGENT_CACHE_MS; createDatabase). */
export function cacheAgentIdsOn(db: Knex, maxAgeMs: number): void {
  caches.set(configOf(db), new AgentIdCache(maxAgeMs));
}

export function agentIdCacheFor(db: Knex): AgentIdCache {
  const config = configOf(db);
  let cache = caches.get(config);
  if (!cache) caches.set(config, (cache = new AgentIdCache(DEFAULT_MAX_AGE_MS)));
  return cache;
}

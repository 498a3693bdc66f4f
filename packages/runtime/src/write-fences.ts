import { withTimeout } from '@ams/core';
import { lsnFromKey, lsnKey, type Lsn } from '@ams/db';
import type { RedisConnection } from './redis';

/** The position a fence of unknown place holds: no replica reaches it, so the key reads the primary until it expires. */
export const EVERYTHING: Lsn = (1n << 64n) - 1n;

const REDIS_TIMEOUT_MS = 1_000;

// Keeps the later of two positions, and the fence's life from this write.
const NOTE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if (not current) or current < ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1`;

/**
 * Read-your-writes per API key: after a key's write, the primary's WAL position at that moment
 * (its fence), kept for `ttlMs`. A read by the key may use a replica only once the replica has
 * replayed the fence. `ttlMs` is at least the replicas' staleness bound: when the fence expires,
 * every replica in rotation has replayed the write anyway.
 *
 * In this process, and in Redis when there is one (so a write through one API process fences the
 * key's reads through every other). When Redis is configured but does not answer, a read cannot know
 * the key's fence and goes to the primary (after() answers null).
 */
export class WriteFences {
  private readonly local = new Map<string, { lsn: Lsn; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly redis?: { conn: RedisConnection; prefix: string },
  ) {}

  private key(keyId: string): string {
    return `${this.redis!.prefix}:rw:${keyId}`;
  }

  async note(keyId: string, lsn: Lsn): Promise<void> {
    const now = Date.now();
    const held = this.local.get(keyId);
    this.local.set(keyId, { lsn: held && held.until > now && held.lsn > lsn ? held.lsn : lsn, until: now + this.ttlMs });
    if (this.local.size > 10_000) for (const [k, f] of this.local) if (f.until <= now) this.local.delete(k);
    if (!this.redis?.conn.isReady()) return;
    await withTimeout(this.redis.conn.client.eval(NOTE_SCRIPT, { keys: [this.key(keyId)], arguments: [lsnKey(lsn), String(this.ttlMs)] }), REDIS_TIMEOUT_MS);
  }

  /** The key's fence (undefined: none), or null when it cannot be known (Redis away). */
  async after(keyId: string): Promise<Lsn | undefined | null> {
    const held = this.local.get(keyId);
    const local = held && held.until > Date.now() ? held.lsn : undefined;
    if (!this.redis) return local;
    if (!this.redis.conn.isReady()) return null;
    try {
      const shared = await withTimeout(this.redis.conn.client.get(this.key(keyId)), REDIS_TIMEOUT_MS);
      const lsn = shared ? lsnFromKey(shared) : undefined;
      return lsn === undefined ? local : local === undefined || lsn > local ? lsn : local;
    } catch {
      return null;
    }
  }
}

import type { Logger } from '@ams/core';

// Bee-Queue runs its Lua scripts by SHA (EVALSHA) and loads them once, on connect. A restarted
// Redis has forgotten them, and every script call then fails with NOSCRIPT until they are loaded
// again. Its own loader is reused, so the SHAs always match the scripts it calls.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const lua: { buildCache(client: unknown): Promise<unknown> } = require('bee-queue/lib/lua');

/** Reloads Bee-Queue's scripts into Redis; concurrent calls share one reload. */
export class ScriptLoader {
  private pending?: Promise<boolean>;

  constructor(
    private readonly client: () => unknown,
    private readonly queueName: string,
    private readonly logger: Logger,
  ) {}

  /** Resolves true once the scripts are loaded, false when Redis could not take them (yet). */
  reload(): Promise<boolean> {
    this.pending ??= this.load().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async load(): Promise<boolean> {
    const client = this.client();
    if (!client) return false;
    try {
      await lua.buildCache(client);
      return true;
    } catch (err) {
      this.logger.warn('could not reload queue scripts', { queue: this.queueName, error: (err as Error).message });
      return false;
    }
  }
}

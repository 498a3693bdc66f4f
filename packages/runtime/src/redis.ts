import { createClient } from 'redis';
import { withTimeout, type Logger } from '@ams/core';

type RedisClient = ReturnType<typeof createClient>;

export interface RedisConnection {
  client: RedisClient;
  /** True while connected; commands fail fast (no offline queue) when it is not. */
  isReady(): boolean;
  close(): Promise<void>;
}

/**
 * Connects in the background and keeps reconnecting: the API must serve while Redis is away,
 * so nothing waits on this connection and no command queues up while it is down.
 */
export function connectRedis(url: string, logger: Logger): RedisConnection {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5000) },
  });
  let lastError = '';
  client.on('error', (err: Error) => {
    // Logged once per distinct failure, not once per reconnect attempt.
    if (err.message !== lastError) logger.warn('redis connection error', { error: err.message });
    lastError = err.message;
  });
  client.on('ready', () => {
    lastError = '';
    logger.info('redis connected');
  });
  client.connect().catch(() => undefined);
  return {
    client,
    isReady: () => client.isReady,
    close: async () => {
      // QUIT needs a live connection; a client still reconnecting is just torn down.
      if (client.isReady) await client.quit().catch(() => undefined);
      else if (client.isOpen) await client.disconnect().catch(() => undefined);
    },
  };
}

/** PING with a deadline; never throws. */
export async function pingRedis(conn: RedisConnection, timeoutMs = 1000): Promise<boolean> {
  if (!conn.isReady()) return false;
  try {
    return await withTimeout(conn.client.ping().then((r) => r === 'PONG'), timeoutMs);
  } catch {
    return false;
  }
}

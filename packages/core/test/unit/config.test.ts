import { ConfigError, loadConfig } from '../../src/config';

describe('loadConfig', () => {
  it('defaults to embedded mode with documented values', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      mode: 'embedded',
      port: 8080,
      host: '127.0.0.1',
      dataDir: './data',
      databaseUrl: undefined,
      redisUrl: undefined,
      rateLimit: { perMinute: 100, registerPerMinute: 10 },
      embedding: { provider: 'transformers', model: 'Xenova/all-MiniLM-L6-v2', allowLexicalFallback: true },
      webhooks: { retryDelaysMs: [5000, 25000, 125000], timeoutMs: 30000, allowLoopback: false },
    });
  });

  it('switches to split mode with DATABASE_URL and forbids the lexical fallback there', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u@db:5432/ams', REDIS_URL: 'redis://redis:6379' });
    expect(c.mode).toBe('split');
    expect(c.embedding.allowLexicalFallback).toBe(false);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', PORT: '' }).mode).toBe('embedded');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ RATE_LIMIT_PER_MINUTE: '0' }, 'RATE_LIMIT_PER_MINUTE'],
    [{ WEBHOOK_RETRY_DELAYS_MS: '5s,25s' }, 'WEBHOOK_RETRY_DELAYS_MS'],
    [{ EMBEDDING_PROVIDER: 'openai' }, 'EMBEDDING_PROVIDER'],
  ])('fails fast on %p, naming the variable', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`${name}:`));
  });

  it('names every bad variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', LOG_LEVEL: 'loud' })).toThrow(/PORT:[\s\S]*LOG_LEVEL:|LOG_LEVEL:[\s\S]*PORT:/);
  });
});

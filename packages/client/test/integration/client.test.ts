import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { AmsError, createMemoryClient } from '../../src';
import { createAccount, createTestApp, TestAccount, TestApp } from '@ams/testing';

let t: TestApp;
let server: Server;
let baseUrl: string;
let acct: TestAccount;

beforeAll(async () => {
  t = await createTestApp();
  acct = await createAccount(t.ctx);
  server = t.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await t.close();
});

describe('the typed client against the real server', () => {
  it('creates, gets and searches memories', async () => {
    const client = createMemoryClient({ baseUrl, apiKey: acct.key });
    const created = await client.memories.create({ content: 'The deploy runs on Fridays at noon', agent_id: 'client-agent' });
    expect(created.object).toBe('memory');
    expect((await client.memories.get(created.id)).content).toBe('The deploy runs on Fridays at noon');
    const results = await client.memories.search({ query: 'deploy Fridays', search_mode: 'keyword', agent_id: 'client-agent' });
    expect(results.data[0]!.memory.id).toBe(created.id);
  });

  it('iterates over every page of a list', async () => {
    const client = createMemoryClient({ baseUrl, apiKey: acct.key });
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await client.memories.create({ content: `paged memory ${i}`, agent_id: 'pager' })).id);
    const seen: string[] = [];
    for await (const m of client.memories.list({ agent_id: 'pager', limit: 2 })) seen.push(m.id);
    expect(seen).toEqual([...made].reverse());
  });

  it('throws typed errors carrying type, code, request id and field details', async () => {
    const client = createMemoryClient({ baseUrl, apiKey: acct.key });
    const invalid = await client.memories.create({ content: '' }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(AmsError);
    expect(invalid).toMatchObject({ status: 422, code: 422, type: 'validation_error' });
    expect((invalid as AmsError).details[0]!.field).toBe('content');
    expect((invalid as AmsError).requestId).toMatch(/.+/);
    const missing = await client.memories.get('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, type: 'not_found', message: 'Memory not found' });
    const denied = await createMemoryClient({ baseUrl, apiKey: 'ams_wrong' }).memories.get('x').catch((e: unknown) => e);
    expect(denied).toMatchObject({ status: 401, type: 'unauthorized' });
  });

  it('waits for Retry-After on a 429 and retries, up to its limit', async () => {
    const limited = await createTestApp({ RATE_LIMIT_PER_MINUTE: '1' });
    const srv = limited.app.listen(0, '127.0.0.1');
    await new Promise((r) => srv.once('listening', r));
    try {
      const a = await createAccount(limited.ctx);
      const waits: number[] = [];
      const client = createMemoryClient({
        baseUrl: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
        apiKey: a.key,
        maxRetries: 2,
        sleep: async (ms) => void waits.push(ms),
      });
      await client.memories.create({ content: 'the one allowed request', agent_id: 'rl' });
      const err = await client.memories.create({ content: 'over the limit', agent_id: 'rl' }).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 429, type: 'rate_limit_exceeded' });
      // Two retries, each after the server's Retry-After (whole seconds, within the minute window).
      expect(waits).toHaveLength(2);
      for (const w of waits) expect(w % 1000 === 0 && w > 0 && w <= 60_000).toBe(true);
    } finally {
      await new Promise((r) => srv.close(r));
      await limited.close();
    }
  });

  it('retries an idempotent request after a 5xx, and not a POST', async () => {
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      calls++;
      return calls === 1 ? new Response('{"type":"internal_error","message":"boom","code":500}', { status: 500 }) : fetch(input, init);
    };
    const client = createMemoryClient({ baseUrl, apiKey: acct.key, fetch: flaky, sleep: async () => undefined });
    const m = await createMemoryClient({ baseUrl, apiKey: acct.key }).memories.create({ content: 'fetched after a 500', agent_id: 'flaky' });
    expect((await client.memories.get(m.id)).id).toBe(m.id);
    expect(calls).toBe(2);
    calls = 0;
    await expect(client.memories.create({ content: 'not retried', agent_id: 'flaky' })).rejects.toMatchObject({ status: 500, type: 'internal_error' });
    expect(calls).toBe(1);
  });
});

import https from 'node:https';
import type { LookupAddress } from 'node:dns';
import { deliverOnce, GuardedHttpsAgent, isAddressRefusedError } from '../../src';
import type { ResolveAll } from '../../src/guarded-agent';
import { startCanary, type Canary } from '@ams/testing';

/**
 * Every non-public target is refused before any connection: a canary TCP listener on the target
 * port (dual-stack, so it would see 127.0.0.1, ::1, ::ffff:127.0.0.1 and 0.0.0.0 connections, and
 * the host's own addresses) must count zero connections.
 */

const body = JSON.stringify({ id: 'evt_1', type: 'memory.created', created_at: new Date().toISOString(), data: {} });
const headers = { 'content-type': 'application/json' };

let canary: Canary;
beforeAll(async () => {
  canary = await startCanary();
});
afterAll(async () => {
  await canary.close();
});
afterEach(() => {
  expect(canary.connections).toBe(0);
});

const attempt = (host: string, allowLoopback: boolean) =>
  deliverOnce({ url: `https://${host}:${canary.port}/hook`, headers, body }, { timeoutMs: 2_000, allowLoopback });

describe('production setting (allowLoopback false)', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    'localhost', // a name that resolves to loopback: caught by the lookup hook
    '10.0.0.1',
    '172.16.0.1',
    '192.168.1.1',
    '100.64.0.1', // CGNAT
    '169.254.169.254', // cloud metadata
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '192.0.2.2', // documentation range (this sandbox's own eth0 address)
    '2130706433', // 127.0.0.1 in decimal; WHATWG URL normalises it
    '0x7f.1',
    '[::1]',
    '[::]',
    '[::ffff:127.0.0.1]',
    '[::ffff:a00:1]', // ::ffff:10.0.0.1
    '[64:ff9b::7f00:1]', // NAT64 form of 127.0.0.1
    '[fe80::1]',
    '[fd00::2]', // unique local
    '[2002:7f00:1::]', // 6to4 embedding 127.0.0.1
  ])('refuses https://%s without connecting', async (host) => {
    const outcome = await attempt(host, false);
    expect(outcome).toMatchObject({ ok: false, statusCode: null, responseExcerpt: null, retryable: false, gone: false });
    expect(outcome.error).toMatch(/^refused to connect to .* is not a public address/);
  });

  it('refuses http:// without connecting', async () => {
    const outcome = await deliverOnce(
      { url: `http://127.0.0.1:${canary.port}/hook`, headers, body },
      { timeoutMs: 2_000, allowLoopback: true },
    );
    expect(outcome).toMatchObject({ ok: false, statusCode: null, retryable: false });
    expect(outcome.error).toMatch(/only https/);
  });

  it('refuses an unparsable URL', async () => {
    const outcome = await deliverOnce({ url: 'not a url', headers, body }, { timeoutMs: 2_000, allowLoopback: false });
    expect(outcome).toMatchObject({ ok: false, error: 'invalid URL', retryable: false });
  });
});

describe('test setting (allowLoopback true) still refuses everything but loopback', () => {
  it.each(['10.0.0.1', '169.254.169.254', '0.0.0.0', '[::]', '[::ffff:127.0.0.1]', '[fd00::2]'])(
    'refuses https://%s',
    async (host) => {
      const outcome = await attempt(host, true);
      expect(outcome).toMatchObject({ ok: false, retryable: false });
      expect(outcome.error).toMatch(/is not a public address/);
    },
  );
});

describe('control: the canary does see a connection that is allowed', () => {
  it('counts an allowed loopback attempt (so the zero counts above mean something)', async () => {
    const control = await startCanary();
    try {
      const outcome = await deliverOnce(
        { url: `https://127.0.0.1:${control.port}/hook`, headers, body },
        { timeoutMs: 300, allowLoopback: true },
      );
      // The canary speaks no TLS, so the handshake stalls until the deadline.
      expect(outcome).toMatchObject({ ok: false, error: 'timeout after 300ms', retryable: true });
      expect(control.connections).toBe(1);
    } finally {
      await control.close();
    }
  });
});

describe('the check sits on the resolved address (DNS answers faked)', () => {
  const fakeDns = (answers: Record<string, LookupAddress[]>): ResolveAll => (hostname, _options, callback) => {
    const found = answers[hostname];
    if (found) setImmediate(() => callback(null, found));
    else setImmediate(() => callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []));
  };

  const post = (agent: https.Agent, hostname: string): Promise<Error> =>
    new Promise((resolve, reject) => {
      const req = https.request({ hostname, port: canary.port, method: 'POST', agent }, () => reject(new Error('got a response')));
      req.on('error', resolve);
      req.end('{}');
    });

  it.each([
    ['a name resolving to loopback', [{ address: '127.0.0.1', family: 4 }]],
    ['a name resolving to metadata', [{ address: '169.254.169.254', family: 4 }]],
    ['a name mixing a public and a private address', [{ address: '93.184.215.14', family: 4 }, { address: '::1', family: 6 }]],
  ])('refuses %s', async (_label, addresses) => {
    const agent = new GuardedHttpsAgent({ policy: { allowLoopback: false }, resolveAll: fakeDns({ 'hooks.example.com': addresses }) });
    try {
      const error = await post(agent, 'hooks.example.com');
      expect(isAddressRefusedError(error)).toBe(true);
      expect(error.message).toContain('hooks.example.com');
    } finally {
      agent.destroy();
    }
  });

  it('re-resolves on every connection, so a rebinding answer is caught at connect time', async () => {
    let calls = 0;
    const rebinding: ResolveAll = (_hostname, _options, callback) => {
      calls += 1;
      // First answer public (what a pre-flight check would have seen), then loopback.
      const address = calls === 1 ? '93.184.215.14' : '127.0.0.1';
      setImmediate(() => callback(null, [{ address, family: 4 }]));
    };
    // Pre-flight style lookup through the same hook: public, allowed.
    const agent = new GuardedHttpsAgent({ policy: { allowLoopback: false }, resolveAll: rebinding });
    try {
      rebinding('hooks.example.com', { all: true }, () => undefined);
      const error = await post(agent, 'hooks.example.com');
      expect(isAddressRefusedError(error)).toBe(true);
      expect(error.message).toContain('127.0.0.1');
    } finally {
      agent.destroy();
    }
  });
});

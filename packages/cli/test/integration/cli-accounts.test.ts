import { createAccount, operatorKey, TestApp } from '@ams/testing';
import { ams, listeningAccount, SPAWNING } from './ams-harness';

let t: TestApp;
let url: string;
let close: () => Promise<void>;

beforeAll(async () => ({ t, url, close } = await listeningAccount()));
afterAll(() => close());

describe('ams accounts', () => {
  it('limits <account> shows and changes them (the operator); usage shows them against the usage', async () => {
    const env = { AMS_API_KEY: await operatorKey(t.ctx) };
    // The newest account: never the operator.
    const acct = await createAccount(t.ctx);
    const set = await ams(['--url', url, 'accounts', 'limits', acct.accountId, '--max-memories', '50', '--searches-per-day', '7', '--fair-share-weight', '2.5'], env);
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/^max_memories +50$/m);
    expect(set.stdout).toMatch(/^searches_per_day +7$/m);
    expect(set.stdout).toMatch(/^fair_share_weight +2\.5$/m);
    expect(set.stdout).toMatch(/^embeddings_per_day +unlimited \(default\)$/m);

    const back = await ams(['--url', url, '--json', 'accounts', 'limits', acct.accountId, '--max-memories', 'default'], env);
    expect(back.code).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({ max_memories: 0, searches_per_day: 7, overrides: { max_memories: null } });

    const bad = await ams(['--url', url, 'accounts', 'limits', acct.accountId, '--max-memories', '-3'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-memories must be a whole number ≥ 0');

    const tenant = await ams(['--url', url, 'accounts', 'limits', acct.accountId], { AMS_API_KEY: acct.key });
    expect(tenant.code).toBe(1);
    expect(tenant.stderr).toContain('operator');

    const usage = await ams(['--url', url, 'accounts', 'usage'], { AMS_API_KEY: acct.key });
    expect(usage.code).toBe(0);
    expect(usage.stdout).toMatch(/^searches +0 of 7 today, 0 this month$/m);
    expect(usage.stdout).toMatch(/^memories +0$/m);
  }, SPAWNING);
});

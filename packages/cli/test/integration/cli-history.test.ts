import { bearer, TestAccount, TestApp } from '@ams/testing';
import { ams, listeningAccount, SPAWNING } from './ams-harness';

let t: TestApp;
let url: string;
let close: () => Promise<void>;
let acct: TestAccount;

beforeAll(async () => ({ t, url, acct, close } = await listeningAccount()));
afterAll(() => close());

describe('ams history', () => {
  it("prints a memory's versions (before → after), as JSON too, and restores one", async () => {
    const m = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'cli-history', content: 'The build takes 4 minutes' }).expect(201);
    await t.request().patch(`/v1/memories/${m.body.id}`).set(bearer(acct.key)).send({ content: 'The build takes 6 minutes' }).expect(200);

    const human = await ams(['--url', url, '--key', acct.key, 'history', m.body.id]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^v2 +\S+ +update +by key [0-9a-f-]{36}$/m);
    expect(human.stdout).toContain('content: The build takes 4 minutes → The build takes 6 minutes');
    expect(human.stdout).toMatch(/^v1 +\S+ +create/m);

    const json = await ams(['--url', url, '--key', acct.key, '--json', 'history', m.body.id, '--limit', '1']);
    expect((JSON.parse(json.stdout) as Array<{ version: number }>).map((v) => v.version)).toEqual([2]);

    const restored = await ams(['--url', url, '--key', acct.key, 'history', m.body.id, '--restore', '1']);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain(`restored ${m.body.id} to version 1: now version 3`);
    expect((await t.request().get(`/v1/memories/${m.body.id}`).set(bearer(acct.key))).body.content).toBe('The build takes 4 minutes');

    expect((await ams(['--url', url, '--key', acct.key, 'history', m.body.id, '--restore', 'x'])).code).toBe(2);
    const missing = await ams(['--url', url, '--key', acct.key, 'history', m.body.id, '--restore', '99']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Memory version not found');
  }, SPAWNING);
});

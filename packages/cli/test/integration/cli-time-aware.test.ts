import { TestAccount, TestApp, waitFor } from '@ams/testing';
import { ams, listeningAccount, SPAWNING } from './ams-harness';

let t: TestApp;
let url: string;
let close: () => Promise<void>;
let acct: TestAccount;

beforeAll(async () => ({ t, url, acct, close } = await listeningAccount()));
afterAll(() => close());

const post = (body: object) => t.request().post('/v1/memories').set({ Authorization: `Bearer ${acct.key}` }).send({ agent_id: 'cli-time', ...body });

describe('ams: time-aware recall and re-tiering', () => {
  it('search --as-of answers what was true then; --explain prints each score factor', async () => {
    const old = await post({ content: 'The standup is at nine in room Aurora' });
    const t0 = Date.now();
    await waitFor(() => Date.now() > t0 + 2, 1_000, 'the clock to move');
    const before = new Date().toISOString();
    await waitFor(() => Date.now() > Date.parse(before) + 2, 1_000, 'the clock to move past as_of');
    const replacement = await post({ content: 'The standup is at ten in room Borealis', supersedes: old.body.id });
    const env = { AMS_API_KEY: acct.key };

    const then = await ams(['--url', url, '--json', 'search', 'standup room', '--agent', 'cli-time', '--as-of', before], env);
    expect(then.code).toBe(0);
    expect((JSON.parse(then.stdout) as { data: Array<{ memory: { id: string } }> }).data.map((d) => d.memory.id)).toEqual([old.body.id]);

    const explained = await ams(['--url', url, 'search', 'standup room', '--agent', 'cli-time', '--mode', 'semantic', '--recency-half-life', '86400', '--explain'], env);
    expect(explained.code).toBe(0);
    expect(explained.stdout).toContain(replacement.body.id);
    expect(explained.stdout).not.toContain(old.body.id);
    expect(explained.stdout).toMatch(/vector \d\.\d{3} {2}keyword — {2}graph — {2}recency (0\.9\d\d|1\.000) {2}importance 0\.500/);

    const future = await ams(['--url', url, 'search', 'standup', '--as-of', '2999-01-01'], env);
    expect(future.code).toBe(1);
    expect(future.stderr).toContain('as_of must not be in the future');
  }, SPAWNING);

  it('retier on / run / moves', async () => {
    const env = { AMS_API_KEY: acct.key };
    const idle = await post({ content: 'A note nobody has read for a year', importance: 0.5 });
    await t.ctx.db.knex('memories').where({ account_id: acct.accountId, id: idle.body.id }).update({ created_at: new Date(Date.now() - 365 * 86_400_000) });
    const on = await ams(['--url', url, 'retier', 'on', '--demote-after-days', '60'], env);
    expect(on.code).toBe(0);
    expect(on.stdout).toMatch(/^re-tiering +on$/m);
    expect(on.stdout).toMatch(/after 60 × \(1 \+ importance\) days unused/);
    const run = await ams(['--url', url, 'retier', 'run'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^promoted 0, demoted 1 /);
    const moves = await ams(['--url', url, 'retier', 'moves'], env);
    expect(moves.stdout).toMatch(new RegExp(`${idle.body.id} {2}warm → cold {2}\\(unused\\)`));
  }, SPAWNING);
});

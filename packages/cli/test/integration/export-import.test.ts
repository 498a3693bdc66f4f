import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bearer, createAccount, TestAccount, TestApp } from '@ams/testing';
import { ams, BIN, listeningApp, SPAWNING } from './ams-harness';

let t: TestApp;
let url: string;
let close: () => Promise<void>;
let source: TestAccount;
let dir: string;

/** The records of an NDJSON export, header left out, in file order. */
const records = (ndjson: string) =>
  ndjson
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string } & Record<string, unknown>)
    .filter((r) => r.type !== 'header');

beforeAll(async () => {
  ({ t, url, close } = await listeningApp());
  source = await createAccount(t.ctx);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ams-cli-'));
  for (const [agent_id, content] of [
    ['exporter', 'The deploy runs every Tuesday at noon'],
    ['exporter', 'Staging uses the small database instance'],
    ['other-agent', 'The other agent prefers short answers'],
  ]) {
    await t.request().post('/v1/memories').set(bearer(source.key)).send({ agent_id, content, metadata: { source: 'cli-test' } }).expect(201);
  }
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await close();
});

describe('ams export and ams import', () => {
  it('round trip: export to a file, import into a fresh account, export again gives the same records', async () => {
    const file = path.join(dir, 'account.ndjson');
    const exported = await ams(['--url', url, '--key', source.key, '--json', 'export', '--output', file, '--include-vectors']);
    expect(exported).toMatchObject({ code: 0, stderr: '' }); // no progress noise when stderr is not a terminal
    const summary = JSON.parse(exported.stdout) as { file: string; bytes: number; lines: number };
    const text = fs.readFileSync(file, 'utf8');
    expect(summary).toEqual({ file, format: 'ndjson', bytes: Buffer.byteLength(text), lines: text.trim().split('\n').length });
    expect(fs.existsSync(`${file}.partial`)).toBe(false);
    expect(records(text).filter((r) => r.type === 'memory')).toHaveLength(3);

    const target = await createAccount(t.ctx);
    const imported = await ams(['--url', url, '--key', target.key, '--json', 'import', file]);
    expect(imported.code).toBe(0);
    const result = JSON.parse(imported.stdout) as { counts: Record<string, { created: number }>; error_count: number };
    expect(result.error_count).toBe(0);
    expect(result.counts.memory!.created).toBe(3);
    expect(result.counts.agent!.created).toBe(2);

    const again = await ams(['--url', url, '--key', target.key, 'export', '--include-vectors']);
    expect(again.code).toBe(0);
    expect(records(again.stdout)).toEqual(records(text));
  }, SPAWNING);

  it('passes the filters and the markdown format to the API, writing to stdout', async () => {
    const filtered = await ams(['--url', url, '--key', source.key, 'export', '--agent', 'other-agent', '--created-after', '2000-01-01T00:00:00Z']);
    expect(filtered.code).toBe(0);
    const memories = records(filtered.stdout).filter((r) => r.type === 'memory');
    expect(memories.map((m) => m.content)).toEqual(['The other agent prefers short answers']);

    const markdown = await ams(['--url', url, '--key', source.key, 'export', '--format', 'markdown', '--agent', 'exporter']);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toContain('The deploy runs every Tuesday at noon');
    expect(markdown.stdout).not.toContain('The other agent prefers short answers');
    expect(markdown.stdout).toMatch(/^#/m);
  }, SPAWNING);

  it('prints counts and each failed line, stores the good lines, and exits 4 when lines failed', async () => {
    const target = await createAccount(t.ctx);
    const file = path.join(dir, 'mixed.ndjson');
    const good = { type: 'memory', id: '4a1b7a8e-2f0c-4d55-9a51-0c3c1f0a7e01', agent: 'mixed', content: 'A good line survives its neighbours', created_at: '2026-01-02T03:04:05.000Z' };
    fs.writeFileSync(file, [JSON.stringify(good), '{"type":"memory","content":', JSON.stringify({ type: 'no_such_type' })].join('\n') + '\n');

    const human = await ams(['--url', url, '--key', target.key, 'import', file, '--on-conflict', 'overwrite']);
    expect(human.code).toBe(4);
    expect(human.stdout).toMatch(/^imported 3 lines/m);
    // Sizes and rates rounded: whole bytes, or one decimal of a larger unit.
    expect(human.stdout).toMatch(/\b\d+ B sent at (\d+ B|\d+\.\d (KB|MB|GB))\/s\b/);
    expect(human.stdout).toMatch(/^failed lines: 2$/m);
    expect(human.stdout).toMatch(/^records: 3 read, 1 stored, 0 skipped, 2 failed$/m);
    expect(human.stdout).toMatch(/^ {2}line 2: /m);
    expect(human.stdout).toMatch(/^ {2}line 3: /m);

    const json = await ams(['--url', url, '--key', target.key, '--json', 'import', file]);
    expect(json.code).toBe(4);
    const result = JSON.parse(json.stdout) as { status: string; error_count: number; errors: Array<{ line: number }>; counts: Record<string, { skipped: number }> };
    expect(result.status).toBe('completed'); // the CLI followed the job to its end
    expect(result.errors.map((e) => e.line)).toEqual([2, 3]);
    expect(result.counts.memory!.skipped).toBe(1); // stored by the first run, skipped by default now
    const listed = await t.request().get('/v1/memories').set(bearer(target.key)).expect(200);
    expect(listed.body.data.map((m: { content: string }) => m.content)).toEqual(['A good line survives its neighbours']);
  }, SPAWNING);

  it('draws a progress bar with bytes and rate when stderr is a terminal (script(1) gives it one)', async () => {
    const target = await createAccount(t.ctx);
    const file = path.join(dir, 'tty.ndjson');
    expect((await ams(['--url', url, '--key', source.key, 'export', '-o', file])).code).toBe(0);
    const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
    const command = [process.execPath, BIN, '--url', url, '--key', target.key, 'import', file].map(quote).join(' ');
    const terminal = await new Promise<string>((resolve) =>
      execFile('script', ['-qec', command, '/dev/null'], { env: { ...process.env, AMS_API_KEY: '' } }, (_err, stdout) => resolve(stdout)),
    );
    expect(terminal).toMatch(/import \[[^\]]*\] 100% \| [\d.]+ (B|KB) of [\d.]+ (B|KB) \| [\d.]+ (B|KB|MB)\/s/);
    expect(terminal).toMatch(/imported \d+ lines/);
  }, SPAWNING);

  it('reads stdin with -', async () => {
    const target = await createAccount(t.ctx);
    const line = JSON.stringify({ type: 'memory', id: '4a1b7a8e-2f0c-4d55-9a51-0c3c1f0a7e02', agent: 'piped', content: 'Piped in through stdin', created_at: '2026-01-02T03:04:05.000Z' });
    const code = await new Promise<number>((resolve) => {
      const child = execFile(process.execPath, [BIN, '--url', url, '--key', target.key, 'import', '-'], (err) => resolve(err ? Number((err as { code?: number }).code) : 0));
      child.stdin!.end(line + '\n');
    });
    expect(code).toBe(0);
    const listed = await t.request().get('/v1/memories').set(bearer(target.key)).expect(200);
    expect(listed.body.data.map((m: { content: string }) => m.content)).toEqual(['Piped in through stdin']);
  }, SPAWNING);

  it('exit codes: 2 for usage (missing file, bad choice, no key), 1 for an API refusal, with its envelope under --json', async () => {
    const missing = await ams(['--url', url, '--key', source.key, 'import', path.join(dir, 'nope.ndjson')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read');
    expect((await ams(['--url', url, '--key', source.key, 'export', '--format', 'xml'])).code).toBe(2);
    expect((await ams(['--url', url, 'export'])).code).toBe(2);
    const unwritable = await ams(['--url', url, '--key', source.key, 'export', '-o', path.join(dir, 'no-such-dir', 'x.ndjson')]);
    expect(unwritable.code).toBe(2);

    const reader = await source.keyWith(['read']);
    const refused = await ams(['--url', url, '--key', reader, '--json', 'export']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr)).toMatchObject({ type: 'authorization_error', code: 403 });
    const badFilter = await ams(['--url', url, '--key', source.key, 'export', '--created-after', 'yesterday']);
    expect(badFilter.code).toBe(1);
    expect(badFilter.stderr).toContain('validation_error');
    const importRefused = await ams(['--url', url, '--key', reader, 'import', path.join(dir, 'mixed.ndjson')]);
    expect(importRefused.code).toBe(1);
  }, SPAWNING);
});

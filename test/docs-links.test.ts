import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/** The Markdown link check of `npm run docs:check`, run on scratch folders: it passes good links and fails broken ones. */
const root = path.resolve(__dirname, '..');
const run = promisify(execFile);

describe('the Markdown link check (remark-validate-links, as npm run docs:check runs it)', () => {
  let dir: string;

  /** remark over `dir` with the repository's .remarkrc.mjs; its exit code and report. */
  async function check(files: Record<string, string>): Promise<{ code: number; report: string }> {
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
    const cli = path.join(root, 'node_modules/remark-cli/cli.js');
    const args = [cli, '--frail', '--quiet', '--no-stdout', '--no-color', '--rc-path', path.join(root, '.remarkrc.mjs'), '.'];
    try {
      const { stderr } = await run(process.execPath, args, { cwd: dir });
      return { code: 0, report: stderr };
    } catch (err) {
      const e = err as { code: number; stderr: string };
      return { code: e.code, report: e.stderr };
    }
  }

  // A repository folder inside a scratch folder, so a file can sit beside the repository.
  beforeEach(() => {
    dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ams-docs-check-')), 'repo');
    fs.mkdirSync(dir);
  });
  afterEach(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));

  it('passes links to files and headings that exist', async () => {
    const result = await check({
      'README.md': '# Title\n\nSee [the guide](docs/guide.md#adding-a-route), [above](#title) and [a site](https://example.com/x).\n',
      'docs/guide.md': '# Guide\n\n## Adding a route\n\nBack to [the README](../README.md).\n',
    });
    expect(result).toEqual({ code: 0, report: '' });
  });

  it('fails on a missing file, a missing heading in this or another file, and a link leaving the repository', async () => {
    fs.writeFileSync(path.join(path.dirname(dir), 'beside-the-repository.md'), '# Outside\n');
    const result = await check({
      'README.md': [
        '# Title',
        '',
        '[gone](docs/missing.md) [no heading](#nowhere) [no heading there](docs/guide.md#nowhere) [outside](../beside-the-repository.md)',
        '',
      ].join('\n'),
      'docs/guide.md': '# Guide\n',
    });
    expect(result.code).toBe(1);
    expect(result.report).toMatch(/Cannot find file `docs\/missing.md`/);
    expect(result.report).toMatch(/Cannot find heading for `#nowhere`/);
    expect(result.report).toMatch(/Cannot find heading for `#nowhere` in `docs\/guide.md`/);
    expect(result.report).toMatch(/`\.\.\/beside-the-repository\.md` points outside the repository/);
  });
});

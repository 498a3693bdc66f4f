import { ndjsonLines } from '../../src/import/ndjson-lines';

async function collect(chunks: Array<Buffer | string>, max = 1024) {
  const out = [];
  for await (const l of ndjsonLines((async function* () { yield* chunks; })(), max)) out.push(l);
  return out;
}

describe('ndjsonLines', () => {
  it('numbers lines across chunk boundaries, multi-byte characters split included; skips blank lines; CRLF', async () => {
    const euro = Buffer.from('€');
    const lines = await collect([Buffer.from('{"a":1}\r\n\n{"b":"'), euro.subarray(0, 1), Buffer.concat([euro.subarray(1), Buffer.from('"}\n{"c":3}')])]);
    expect(lines).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 3, text: '{"b":"€"}' },
      { line: 4, text: '{"c":3}' },
    ]);
  });

  it('reports a line over the limit without holding it, and goes on with the next', async () => {
    const lines = await collect(['{"x":"', 'y'.repeat(40), 'y'.repeat(40), '"}\n{"ok":true}\n'], 50);
    expect(lines).toEqual([
      { line: 1, text: '', tooLong: true },
      { line: 2, text: '{"ok":true}' },
    ]);
  });
});

import { FILES, uncovered } from '../../tools/sql/entries';
import { literal, renderStatement } from '../../tools/sql/render';

describe('npm run sql: the entries', () => {
  it('call every function the repository modules export', async () => {
    expect(await uncovered()).toEqual([]);
  });

  it('name a repository function that has no entry, and an exported helper not listed', async () => {
    const files = FILES.map((f) =>
      f.name !== 'memories'
        ? f
        : {
            ...f,
            helpers: { ...f.helpers, semanticSet: undefined as never },
            repositories: f.repositories.map((r) => ({ ...r, entries: { ...r.entries, findLive: [] } })),
          },
    );
    expect((await uncovered(files)).sort()).toEqual(['memories.repository.ts: memoriesRepository.findLive', 'memories.repository.ts: semanticSet']);
  });
});

describe('npm run sql: the rendering', () => {
  it('inlines each value as the literal the driver sends', () => {
    expect(literal(null)).toBe('NULL');
    expect(literal("it's")).toBe("'it''s'");
    expect(literal(new Date('2026-01-15T12:00:00.000Z'))).toBe("'2026-01-15T12:00:00.000Z'");
    expect(literal(['a', 'b "c"', null])).toBe(`'{"a","b \\"c\\"",NULL}'`);
    expect(literal([0.5, 1])).toBe("'{0.5,1}'");
    expect(literal({ scope: 'long-term' })).toBe(`'{"scope":"long-term"}'`);
  });

  it('shortens a long vector and lays the statement out', () => {
    const vector = `[${Array.from({ length: 384 }, () => '0.1').join(',')}]`;
    expect(renderStatement({ sql: 'select id from memories where embedding <=> $1::vector < $2', bindings: [vector, 0.5] })).toBe(
      "SELECT\n  id\nFROM\n  memories\nWHERE\n  embedding <=> '[…384 numbers]'::vector < 0.5;",
    );
    expect(renderStatement({ sql: 'BEGIN;', bindings: [] })).toBe('BEGIN;');
  });
});

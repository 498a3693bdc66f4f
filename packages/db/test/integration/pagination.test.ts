import { Database, decodeCursor, memoriesRepository, MemoryRow } from '../../src';
import { insertMemories, openRunDatabase, tenant } from './fixtures';

/** Newest-first pages by offset and by keyset cursor, ties broken by id, on real PostgreSQL. */
describe('pagination', () => {
  let db: Database;
  let accountId: string;
  let expected: string[];

  beforeAll(async () => {
    db = await openRunDatabase();
    const t = await tenant(db);
    accountId = t.accountId;
    // Seven memories over five instants: two pairs share a created_at to the microsecond.
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    const at = [0, 1, 1, 2, 3, 3, 4].map((s) => new Date(base + s * 1000));
    const rows = await insertMemories(db, t, at.map((createdAt, i) => ({ createdAt, content: `kafka ${i}` })));
    expected = [...rows]
      .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : -1))
      .map((r) => r.id);
  });
  afterAll(() => db.close());

  const list = (page: { limit: number; offset?: number; cursor?: string }) =>
    memoriesRepository.list(db.knex, accountId, {}, { limit: page.limit, offset: page.offset ?? 0, cursor: page.cursor ? decodeCursor(page.cursor) : undefined });

  it('walks every row once by cursor, newest first, id descending within one instant', async () => {
    const seen: MemoryRow[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await list({ limit: 2, cursor });
      expect(page.totalCount).toBe(7);
      seen.push(...page.rows);
      if (!page.hasMore) {
        expect(page.nextCursor).toBeNull();
        break;
      }
      cursor = page.nextCursor!;
    }
    expect(seen.map((r) => r.id)).toEqual(expected);
  });

  it('pages by offset in the same order', async () => {
    const pages = await Promise.all([0, 3, 6].map((offset) => list({ limit: 3, offset })));
    expect(pages.flatMap((p) => p.rows.map((r) => r.id))).toEqual(expected);
    expect(pages.map((p) => p.hasMore)).toEqual([true, true, false]);
  });

  it('answers an empty last page past the end', async () => {
    const page = await list({ limit: 5, offset: 7 });
    expect(page).toMatchObject({ rows: [], hasMore: false, nextCursor: null, totalCount: 7 });
  });

  it('rejects cursors it did not issue', () => {
    expect(decodeCursor('not-a-cursor')).toBeUndefined();
    expect(decodeCursor(Buffer.from(JSON.stringify(['yesterday', 'x'])).toString('base64url'))).toBeUndefined();
  });
});

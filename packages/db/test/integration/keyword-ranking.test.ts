import { CommonWords, Database, memoriesRepository, SearchFilters } from '../../src';
import { insertMemories, openRunDatabase, tenant } from './fixtures';

/** Which rows keyword search scores (keyword-ranking.ts), on real PostgreSQL. */
describe('keyword candidates', () => {
  let db: Database;
  let filters: SearchFilters;
  let words: CommonWords;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    db = await openRunDatabase();
    words = new CommonWords(db.knex);
    const t = await tenant(db);
    filters = { accountId: t.accountId, includeConfidential: true, includeArchived: true, metadataFilter: [], embeddingModel: 'test-model' };
    // "quokka" and "wombat" are common here (past the 500 rows that make a word common); "platypus" is rare.
    const common = Array.from({ length: 520 }, (_, i) => ({ content: `quokka and wombat sighting number ${i}` }));
    const rows = await insertMemories(db, t, [{ content: 'a platypus and a quokka by the river' }, { content: 'a platypus alone' }, { content: 'one quokka only' }, ...common]);
    Object.assign(ids, { both: rows[0]!.id, alone: rows[1]!.id, oneCommon: rows[2]!.id });
    await db.knex.raw('ANALYZE memories');
  });
  afterAll(async () => {
    await words.close();
    await db.close();
  });

  /** The words a keyword search did not count because they were known to be common (its first statement's first binding). */
  async function skipped(query: string): Promise<string[]> {
    const seen: Array<{ sql: string; bindings: unknown[] }> = [];
    const listen = (q: { sql: string; bindings: unknown[] }) => seen.push(q);
    db.knex.on('query', listen);
    await memoriesRepository.keywordCandidates(db.knex, words, filters, query, 5);
    db.knex.off('query', listen);
    return seen.find((q) => q.sql.includes('tsvector_to_array'))!.bindings[0] as string[];
  }

  it('answers from the rows holding a rare query word when they fill the limit', async () => {
    const found = await memoriesRepository.keywordCandidates(db.knex, words, filters, 'platypus quokka wombat', 2);
    expect(found.map((c) => c.id).sort()).toEqual([ids.both, ids.alone].sort());
  });

  it('widens to rows holding two common query words when the rare ones fill less than the limit', async () => {
    const found = await memoriesRepository.keywordCandidates(db.knex, words, filters, 'platypus quokka wombat', 5);
    expect(found).toHaveLength(5);
    // The rare word outweighs the common ones: its rows come first.
    expect(found.slice(0, 2).map((c) => c.id).sort()).toEqual([ids.both, ids.alone].sort());
    // A row holding a single common word is never a candidate of a query with rarer words.
    expect(found.map((c) => c.id)).not.toContain(ids.oneCommon);
  });

  it('knows the common words of the table after a background count started by the first search', async () => {
    // The searches above started it (warmUp); none of them asked for "sighting".
    await words.settled();
    const known = await skipped('platypus sighting');
    expect(known).toContain('sight');
    expect(known).not.toContain('platypus');
    // Ranked as a counted "sighting" ranks: the rows with the rare word first.
    const found = await memoriesRepository.keywordCandidates(db.knex, words, filters, 'platypus sighting', 2);
    expect(found.map((c) => c.id).sort()).toEqual([ids.both, ids.alone].sort());
  });

  it('forgets a common word once its time is up, and keeps at most its bound of row sets', async () => {
    const brief = new CommonWords(db.knex, { rememberMs: 0, maxScopes: 2, warmUpChunk: 64, warmUpTimeoutMs: 1000, warmUpSpacingMs: 0 });
    brief.remember('a', ['quokka']);
    expect(brief.known('a')).toEqual([]);
    const lasting = new CommonWords(db.knex, { rememberMs: 60_000, maxScopes: 2, warmUpChunk: 64, warmUpTimeoutMs: 1000, warmUpSpacingMs: 0 });
    for (const scope of ['a', 'b', 'c']) lasting.remember(scope, ['quokka']);
    expect(['a', 'b', 'c'].map((scope) => lasting.known(scope))).toEqual([[], ['quokka'], ['quokka']]);
    await Promise.all([brief.close(), lasting.close()]);
  });

  it('starts no warm-up once closed', async () => {
    const closed = new CommonWords(db.knex);
    await closed.close();
    const seen: string[] = [];
    const listen = (q: { sql: string }) => seen.push(q.sql);
    db.knex.on('query', listen);
    await memoriesRepository.keywordCandidates(db.knex, closed, filters, 'platypus sighting', 2);
    await closed.settled();
    db.knex.off('query', listen);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((sql) => sql.includes('pg_stats'))).toEqual([]);
  });

  it('falls back to pairs of common words when the query has no rare one', async () => {
    const found = await memoriesRepository.keywordCandidates(db.knex, words, filters, 'quokka wombat', 3);
    expect(found).toHaveLength(3);
    expect(found.map((c) => c.id)).not.toContain(ids.oneCommon);
  });
});

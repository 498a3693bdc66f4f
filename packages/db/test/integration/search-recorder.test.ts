import { Database, SearchEvent, SearchRecorder } from '../../src';
import { openRunDatabase, tenant } from './fixtures';

/** Search records written after the answer, together: one INSERT for the records that arrive within a window or while one is written. */
describe('SearchRecorder', () => {
  let db: Database;
  let accountId: string;
  let recorder: SearchRecorder;
  const failures: Array<{ error: string; lost: number }> = [];

  beforeAll(async () => {
    db = await openRunDatabase();
    ({ accountId } = await tenant(db));
    recorder = new SearchRecorder(db.knex, (err, lost) => failures.push({ error: err.message, lost }));
  });
  afterEach(() => (failures.length = 0));
  afterAll(() => db.close());

  const event = (query: string, over: Partial<SearchEvent> = {}): SearchEvent => ({ accountId, agentId: null, query, searchMode: 'keyword', resultCount: 0, avgScore: null, responseMs: 1.5, ...over });
  const recorded = async (queries: string[]) =>
    (await db.knex('search_events').where({ account_id: accountId }).whereIn('query', queries).orderBy('query').select('query')).map((r: { query: string }) => r.query);
  /** The INSERTs into search_events that `fn` causes, by the app's own knex. */
  async function insertsDuring(fn: () => Promise<void>): Promise<number> {
    let n = 0;
    const count = (q: { sql: string }) => (n += /INSERT INTO search_events/.test(q.sql) ? 1 : 0);
    db.knex.on('query', count);
    try {
      await fn();
    } finally {
      db.knex.off('query', count);
    }
    return n;
  }

  it('writes the records handed over in one turn in one INSERT, after that turn; written() waits for them', async () => {
    const queries = ['burst a', 'burst b', 'burst c'];
    const inserts = await insertsDuring(async () => {
      for (const q of queries) recorder.record(event(q, { memoryIds: [] }));
      // Not in the turn that handed them over: the search's answer goes out first.
      expect(await recorded(queries)).toEqual([]);
      await recorder.written();
    });
    expect(inserts).toBe(1);
    expect(await recorded(queries)).toEqual(queries);
  });

  it('writes one INSERT per account of a burst, so each statement stays on its account\'s shard on Citus', async () => {
    const other = await tenant(db);
    const inserts = await insertsDuring(async () => {
      recorder.record(event('mine 1'));
      recorder.record(event('theirs', { accountId: other.accountId }));
      recorder.record(event('mine 2'));
      await recorder.written();
    });
    expect(inserts).toBe(2);
    expect(await recorded(['mine 1', 'mine 2'])).toEqual(['mine 1', 'mine 2']);
    expect(await db.knex('search_events').where({ account_id: other.accountId, query: 'theirs' })).toHaveLength(1);
  });

  it('keeps each record\'s fields, its memory ids among them', async () => {
    const ids = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
    recorder.record(event('with fields', { searchMode: 'hybrid', resultCount: 2, avgScore: 0.75, responseMs: 12.5, memoryIds: ids }));
    await recorder.written();
    const row = await db.knex('search_events').where({ account_id: accountId, query: 'with fields' }).first();
    expect(row).toMatchObject({ search_mode: 'hybrid', result_count: 2, agent_id: null, memory_ids: ids });
    expect(Number(row.avg_score)).toBeCloseTo(0.75);
    expect(Number(row.response_ms)).toBeCloseTo(12.5);
  });

  it('gathers the records handed over while a write waits into the next write, which written() waits for', async () => {
    const hold = await db.knex.transaction();
    try {
      await hold.raw('LOCK TABLE search_events IN EXCLUSIVE MODE');
      let inserts = 0;
      const count = (q: { sql: string }) => (inserts += /INSERT INTO search_events/.test(q.sql) ? 1 : 0);
      db.knex.on('query', count);
      recorder.record(event('first, held'));
      void recorder.written();
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      const later = ['later 1', 'later 2', 'later 3'];
      for (const q of later) recorder.record(event(q));
      let written = false;
      const pending = recorder.written().then(() => (written = true));
      await new Promise((r) => setTimeout(r, 50));
      expect(written).toBe(false);
      await hold.commit();
      await pending;
      db.knex.off('query', count);
      expect(inserts).toBe(2);
      expect(await recorded(['first, held', ...later])).toEqual(['first, held', ...later]);
    } finally {
      if (!hold.isCompleted()) await hold.rollback();
    }
  });

  it('gathers the records of the next gatherMs into the first one\'s INSERT, and writes them then unasked', async () => {
    const gathering = new SearchRecorder(db.knex, (err, lost) => failures.push({ error: err.message, lost }), 300);
    const queries = ['gathered 1', 'gathered 2', 'gathered 3'];
    const inserts = await insertsDuring(async () => {
      const started = Date.now();
      for (const q of queries) {
        gathering.record(event(q));
        await new Promise((r) => setTimeout(r, 20));
      }
      // Nobody asks: the window ends, and one INSERT writes all three.
      while ((await recorded(queries)).length < queries.length) {
        expect(Date.now() - started).toBeLessThan(5_000);
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    });
    expect(inserts).toBe(1);
  });

  it('writes what it gathers at once when written() is asked, without waiting out the window', async () => {
    const gathering = new SearchRecorder(db.knex, (err, lost) => failures.push({ error: err.message, lost }), 60_000);
    gathering.record(event('asked for'));
    await gathering.written();
    expect(await recorded(['asked for'])).toEqual(['asked for']);
  });

  it('loses only the record the database refuses, and reports it', async () => {
    const good = ['kept after', 'kept before'];
    recorder.record(event(good[0]!));
    recorder.record(event('refused', { accountId: 'not-a-uuid' }));
    recorder.record(event(good[1]!));
    await recorder.written();
    expect(await recorded(good)).toEqual(good);
    expect(failures).toEqual([{ error: expect.stringMatching(/uuid/), lost: 1 }]);
    // And it goes on recording.
    recorder.record(event('after the failure'));
    await recorder.written();
    expect(await recorded(['after the failure'])).toEqual(['after the failure']);
  });

  it('has nothing to wait for when nothing was handed over', async () => {
    await expect(new SearchRecorder(db.knex, () => undefined).written()).resolves.toBeUndefined();
  });
});

import crypto from 'node:crypto';
import { CommonWords, createDatabase, createPgliteDatabase, Database, memoriesRepository, NewMemory, newMemoriesRepository, prepared, searchHitsRepository, SearchFilters } from '../../src';
import { axis, insertMemories, tenant } from './fixtures';

/** One connection, so pg_prepared_statements shows what the statements before it prepared. */
const openSingleConnection = (dbPreparedStatements?: boolean, dbCancelAbandonedReads?: boolean): Promise<Database> =>
  createDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '', dbPoolMax: 1, dbPreparedStatements, dbCancelAbandonedReads });

describe('databases that do not name statements', () => {
  it('run a statement marked for preparing unnamed: with DB_PREPARED_STATEMENTS=false, and on PGlite', async () => {
    const plain = await openSingleConnection(false, false);
    const lite = await createPgliteDatabase('memory://');
    try {
      expect((await prepared(plain.knex, plain.knex.raw('SELECT ?::int AS n', [3]))).rows).toEqual([{ n: 3 }]);
      expect(await preparedHere(plain)).toEqual([]);
      expect((await prepared(lite.knex, lite.knex.raw('SELECT ?::int AS n', [3]))).rows).toEqual([{ n: 3 }]);
    } finally {
      await plain.close();
      await lite.close();
    }
  }, 120_000);
});

const preparedHere = async (db: Database): Promise<Array<{ name: string; statement: string }>> =>
  (await db.knex.raw(`SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'ams\\_%' ORDER BY name`)).rows;

/** The search path's statements as named prepared statements (prepared-statements.ts: pg's query name, through knex's options()), on real PostgreSQL. */
describe('prepared statements', () => {
  async function searchTwice(db: Database) {
    const words = new CommonWords(db.knex);
    const t = await tenant(db);
    await insertMemories(db, t, [{ content: 'the kafka consumer lag alert' }, { content: 'kafka partitions were rebalanced' }, { content: 'a note about redis' }]);
    const f: SearchFilters = { accountId: t.accountId, includeConfidential: true, includeArchived: true, metadataFilter: [], embeddingModel: 'test-model' };
    const results = [];
    for (let i = 0; i < 2; i++) {
      results.push({
        keyword: await memoriesRepository.keywordCandidates(db.knex, words, f, 'kafka lag', 5),
        semantic: await memoriesRepository.semanticCandidates(db.knex, f, axis(0), 2),
        graph: await memoriesRepository.graphCandidates(db.knex, f, ['kafka'], 5),
      });
    }
    await words.close();
    return results;
  }

  it('names the search statements on PostgreSQL, and finds what unnamed statements find', async () => {
    const named = await openSingleConnection();
    const unnamed = await openSingleConnection(false);
    try {
      const withNames = await searchTwice(named);
      const withoutNames = await searchTwice(unnamed);
      // Each statement text is prepared once on the connection, however often it runs: the
      // keyword count and ranking, the graph; never a nearest-neighbour scan (its plan hangs on the filters' values).
      const statements = await preparedHere(named);
      expect(statements.length).toBe(3);
      expect(statements.filter((s) => s.statement.includes('<=>'))).toEqual([]);
      expect(await preparedHere(unnamed)).toEqual([]);
      // Same rows, same scores, same order, run after run (ids differ: two tenants).
      const shape = (r: typeof withNames) => r.map((x) => Object.values(x).map((list) => list.map((c) => c.score)));
      expect(shape(withNames)).toEqual(shape(withoutNames));
      expect(withNames[1]).toEqual(withNames[0]);
      expect(withNames[0]!.keyword.length).toBe(2);
    } finally {
      await named.close();
      await unnamed.close();
    }
  });

  it("reads a semantic search's rows with a named statement after its unnamed top-k, as the one statement of a database that names none reads them", async () => {
    const named = await openSingleConnection();
    const unnamed = await openSingleConnection(false);
    try {
      const nearest = async (db: Database) => {
        const t = await tenant(db);
        // Each further from axis 0 than the one before: no two scores tie.
        const leaning = (i: number) => `[${Array.from({ length: 384 }, (_, j) => (j === 0 ? 1 : j === 1 ? i / 10 : 0.01)).join(',')}]`;
        await insertMemories(db, t, Array.from({ length: 12 }, (_, i) => ({ content: `note ${i}`, embedding: leaning(i) })));
        const f: SearchFilters = { accountId: t.accountId, includeConfidential: true, includeArchived: true, metadataFilter: [], embeddingModel: 'test-model' };
        const hits = await searchHitsRepository.nearest(db.knex, f, axis(0), 5);
        return hits.map((h) => [h.content, h.score, h.entities]);
      };
      const [withNames, withoutNames] = [await nearest(named), await nearest(unnamed)];
      expect(withNames).toHaveLength(5);
      expect(withNames).toEqual(withoutNames);
      const statements = await preparedHere(named);
      expect(statements.map((s) => s.statement)).toEqual([expect.stringContaining('unnest($2::uuid[], $3::float8[])')]);
    } finally {
      await named.close();
      await unnamed.close();
    }
  });

  it("names one memory's create statement (a text per shape), never a batch's", async () => {
    const db = await openSingleConnection();
    try {
      const t = await tenant(db);
      const memory = (content: string): NewMemory & { id: string } => ({
        id: crypto.randomUUID(), accountId: t.accountId, agentId: t.agentId, content, metadata: { n: content }, memoryType: 'fact', visibility: 'private',
        importance: 0.5, tier: 'warm', tierExplicit: false, sessionId: null, projectId: null, embedding: axis(0), embeddingModel: 'test-model', embeddingStatus: 'ready',
      });
      const create = (...memories: Array<NewMemory & { id: string }>) => newMemoriesRepository.insertWithRecords(db.knex, { memories, entities: [], events: [] });
      const first = await create(memory('one'));
      const second = await create(memory('two'));
      expect([first.rows[0]!.content, second.rows[0]!.content]).toEqual(['one', 'two']);
      expect(second.rows[0]!.metadata).toEqual({ n: 'two' });
      const batch = await create(memory('three'), memory('four'));
      expect(batch.rows.map((r) => r.content)).toEqual(['three', 'four']);
      const creates = (await preparedHere(db)).filter((p) => p.statement.startsWith('WITH mem AS'));
      expect(creates).toHaveLength(1);
      expect(creates[0]!.statement).not.toContain('), ($');
    } finally {
      await db.close();
    }
  });

  it('names at most 64 distinct statement texts on a database; later ones run unnamed, and run', async () => {
    const db = await openSingleConnection();
    try {
      for (let i = 0; i < 70; i++) {
        const { rows } = await prepared(db.knex, db.knex.raw(`SELECT ${i}::int AS n, ?::int AS m`, [i]));
        expect(rows).toEqual([{ n: i, m: i }]);
      }
      expect(await preparedHere(db)).toHaveLength(64);
    } finally {
      await db.close();
    }
  });

  it("names a statement run in a transaction of the database too (the transaction's client shares its config)", async () => {
    const db = await openSingleConnection();
    try {
      const rows = await db.knex.transaction(async (trx) => (await prepared(trx, trx.raw('SELECT ?::int AS in_trx', [5]))).rows);
      expect(rows).toEqual([{ in_trx: 5 }]);
      expect((await preparedHere(db)).map((s) => s.statement)).toEqual([expect.stringContaining('in_trx')]);
    } finally {
      await db.close();
    }
  });

  it('reports a bad statement as the unnamed one would, and the connection goes on', async () => {
    const db = await openSingleConnection();
    try {
      await expect(prepared(db.knex, db.knex.raw('SELECT ?::int AS n', ['not a number']))).rejects.toThrow(/invalid input syntax for type integer/);
      const { rows } = await prepared(db.knex, db.knex.raw('SELECT ?::int AS n', [7]));
      expect(rows).toEqual([{ n: 7 }]);
    } finally {
      await db.close();
    }
  });
});

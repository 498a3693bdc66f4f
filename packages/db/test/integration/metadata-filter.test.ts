import { CommonWords, Database, memoriesRepository, MetadataCondition, SearchFilters } from '../../src';
import { insertMemories, openRunDatabase, tenant } from './fixtures';

/** The metadata_filter compiler (jsonb containment, existence, typed comparisons) on real PostgreSQL. */
describe('metadata filter compiler', () => {
  let db: Database;
  let words: CommonWords;
  let filters: Omit<SearchFilters, 'metadataFilter'>;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    db = await openRunDatabase();
    words = new CommonWords(db.knex);
    const t = await tenant(db);
    filters = { accountId: t.accountId, includeConfidential: true, includeArchived: true, embeddingModel: 'test-model' };
    const docs: Record<string, Record<string, unknown>> = {
      red: { color: 'red', size: 3, tags: ['a', 'b'] },
      blue: { color: 'blue', size: 10 },
      bare: {},
      text: { color: 'red', size: '3' },
      nested: { color: { shade: 'red' } },
    };
    const rows = await insertMemories(db, t, Object.values(docs).map((metadata) => ({ metadata })));
    Object.keys(docs).forEach((name, i) => (ids[name] = rows[i]!.id));
  });
  afterAll(async () => {
    await words.close();
    await db.close();
  });

  const matching = async (...metadataFilter: MetadataCondition[]) => {
    const found = await memoriesRepository.keywordCandidates(db.knex, words, { ...filters, metadataFilter }, 'kafka', 100);
    const names = Object.entries(ids).filter(([, id]) => found.some((c) => c.id === id)).map(([name]) => name);
    return names.sort();
  };

  it.each<[string, MetadataCondition[], string[]]>([
    ['$eq on a string', [{ key: 'color', op: '$eq', value: 'red' }], ['red', 'text']],
    ['$eq on a number is typed', [{ key: 'size', op: '$eq', value: 3 }], ['red']],
    ['$eq on an array element (containment)', [{ key: 'tags', op: '$eq', value: ['a'] }], ['red']],
    ['$ne keeps rows without the key', [{ key: 'color', op: '$ne', value: 'red' }], ['bare', 'blue', 'nested']],
    ['$in', [{ key: 'color', op: '$in', value: ['blue', 'green'] }], ['blue']],
    ['$in with nothing matches nothing', [{ key: 'color', op: '$in', value: [] }], []],
    ['$nin', [{ key: 'color', op: '$nin', value: ['red', 'blue'] }], ['bare', 'nested']],
    ['$in is typed (3 is not "3")', [{ key: 'size', op: '$in', value: [3, 99] }], ['red']],
    ['$in holds no array element by itself (as $eq)', [{ key: 'tags', op: '$in', value: ['a', 'x'] }], []],
    ['$in with scalars and objects (containment)', [{ key: 'color', op: '$in', value: ['blue', { shade: 'red' }] }], ['blue', 'nested']],
    ['$in with an array (containment)', [{ key: 'tags', op: '$in', value: [['b'], 'z'] }], ['red']],
    ['$in null matches a stored null only', [{ key: 'color', op: '$in', value: [null] }], []],
    ['$nin with scalars and objects keeps rows without the key', [{ key: 'color', op: '$nin', value: ['red', { shade: 'red' }] }], ['bare', 'blue']],
    ['$exists true', [{ key: 'size', op: '$exists', value: true }], ['blue', 'red', 'text']],
    ['$exists false', [{ key: 'size', op: '$exists', value: false }], ['bare', 'nested']],
    ['$gt compares numbers numerically (10 > 4), never strings', [{ key: 'size', op: '$gt', value: 4 }], ['blue']],
    ['$lte on numbers', [{ key: 'size', op: '$lte', value: 3 }], ['red']],
    ['$gte compares strings lexically, never numbers', [{ key: 'size', op: '$gte', value: '3' }], ['text']],
    ['$lt on strings', [{ key: 'color', op: '$lt', value: 'c' }], ['blue']],
    ['conditions combine with AND', [{ key: 'color', op: '$eq', value: 'red' }, { key: 'size', op: '$exists', value: true }, { key: 'size', op: '$lt', value: 5 }], ['red']],
    ['a nested object by containment', [{ key: 'color', op: '$eq', value: { shade: 'red' } }], ['nested']],
  ])('%s', async (_name, conditions, expected) => {
    expect(await matching(...conditions)).toEqual(expected);
  });

  it('treats keys and values as data, never SQL', async () => {
    expect(await matching({ key: "color') OR true --", op: '$exists', value: true })).toEqual([]);
    expect(await matching({ key: 'color', op: '$eq', value: "red' OR '1'='1" })).toEqual([]);
  });
});

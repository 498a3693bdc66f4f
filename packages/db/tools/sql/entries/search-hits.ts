import { searchHitsRepository } from '../../../src/repositories/search-hits.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, MEMORIES, vector } from '../fixtures';
import { FILTERED_SEARCH, SEARCH } from './memories';

export const searchHits = entriesOf('searchHitsRepository', searchHitsRepository, {
  hydrate: [{ args: [ACCOUNT, [{ id: MEMORIES[0]!, score: 0.91 }, { id: MEMORIES[1]!, score: 0.84 }]] }],
  nearest: [
    { name: 'a semantic search: one statement when the index answers', args: [SEARCH, vector(0), 3] },
    { name: 'fewer rows than k pass the filters: the exact scan, then hydrate', args: [FILTERED_SEARCH, vector(0), 10] },
  ],
  keyword: [{ name: 'a keyword search', args: ({ words }) => [words, SEARCH, 'postgresql invoices', 3] }],
});

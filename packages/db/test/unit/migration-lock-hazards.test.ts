import { MIGRATIONS } from '../../src/migrations';
import { checkedMigrationHazards, lockHazards } from '../migration-lock-hazards';

describe('migrations take no lock the services would queue behind (static check)', () => {
  it('flags none of the migrations after the checked line', () => {
    expect(checkedMigrationHazards(MIGRATIONS)).toEqual([]);
  });

  it('flags an index built without CONCURRENTLY on a table with rows, and the earlier HNSW rebuild', () => {
    const bad = { name: '20991231_001_bad', up: ['CREATE INDEX memories_client_idx ON memories (client_id)'] };
    expect(lockHazards(bad)).toEqual([expect.stringContaining('20991231_001_bad: CREATE INDEX without CONCURRENTLY')]);
    const rebuild = MIGRATIONS.find((m) => m.name === '20261124_025_hnsw_lighter_graph')!;
    expect(lockHazards(rebuild)).toEqual([expect.stringContaining('CREATE INDEX without CONCURRENTLY')]);
  });

  it('passes the same index built CONCURRENTLY, and indexes of a table the migration creates', () => {
    expect(
      lockHazards({
        name: '20991231_002_good',
        transaction: false,
        up: ['DROP INDEX CONCURRENTLY IF EXISTS memories_client_idx', 'CREATE INDEX CONCURRENTLY memories_client_idx ON memories (client_id)'],
      }),
    ).toEqual([]);
    expect(lockHazards(MIGRATIONS.find((m) => m.name === '20261128_071_oauth')!)).toEqual([]);
  });

  it('flags a rewrite, a validated constraint, SET NOT NULL and a backfill in the transaction', () => {
    const hazards = lockHazards({
      name: '20991231_003_bad',
      up: [
        'ALTER TABLE memories ALTER COLUMN importance TYPE double precision',
        'ALTER TABLE memories ADD CONSTRAINT memories_content_len CHECK (length(content) < 100000)',
        'ALTER TABLE memories ALTER COLUMN client_id SET NOT NULL',
        "UPDATE memories SET metadata = '{}' WHERE metadata IS NULL",
        'ALTER TABLE memories ADD CONSTRAINT memories_content_len2 CHECK (length(content) < 100000) NOT VALID',
      ],
    });
    expect(hazards.map((h) => h.split(': ')[1])).toEqual([
      'a column type change (rewrites the table)',
      'a CHECK or FOREIGN KEY constraint without NOT VALID (validated under the lock)',
      'SET NOT NULL (scans the table; add a CHECK … NOT VALID, validate it, then set it)',
      "rows changed in the migration's transaction (locked until it commits; batch them outside)",
    ]);
  });
});

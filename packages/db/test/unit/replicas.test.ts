import { formatLsn, isReplicaFault, lsnFromKey, lsnKey, parseLsn, replicaIsDown, replicaName, walEnd } from '../../src';

const LAYOUT = { blockSize: 8192, segmentSize: 16 * 1024 * 1024 };

describe('WAL positions', () => {
  it('parses and prints PostgreSQL’s form, and orders as the WAL does', () => {
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(formatLsn(parseLsn('0/EA292A8'))).toBe('0/EA292A8');
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
    expect(() => parseLsn('16-B374D848')).toThrow('not a WAL position: "16-B374D848"');
  });

  it('keys compare as strings in the order of their positions (what the Redis fence script compares)', () => {
    const positions = ['0/EA292A8', '0/FFFFFFFF', '1/0', '16/B374D848', 'A/1'].map(parseLsn);
    const keys = positions.map(lsnKey);
    expect([...keys].sort()).toEqual([...positions].sort((a, b) => (a < b ? -1 : 1)).map(lsnKey));
    expect(keys.map(lsnFromKey)).toEqual(positions);
  });

  it('moves an insert position just past a page header back to the page boundary a replica reports', () => {
    const page = 8192n * 7n;
    expect(walEnd(page + 24n, LAYOUT)).toBe(page);
    const segment = 16n * 1024n * 1024n * 3n;
    expect(walEnd(segment + 40n, LAYOUT)).toBe(segment);
    // Anything else is a record's end, even 24 or 40 bytes into a page past the first (a record's tail).
    expect(walEnd(page + 40n, LAYOUT)).toBe(page + 40n);
    expect(walEnd(page + 1000n, LAYOUT)).toBe(page + 1000n);
    expect(walEnd(segment + 24n, LAYOUT)).toBe(segment + 24n);
  });
});

describe('replica faults', () => {
  it('retries on the primary what the replica caused, not what the read did', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', '57P01', '57P03', '08006', '40001', '25006', '3D000', '53300']) expect(isReplicaFault({ code })).toBe(true);
    expect(isReplicaFault(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isReplicaFault(Object.assign(new Error('Knex: Timeout acquiring a connection'), { name: 'KnexTimeoutError' }))).toBe(true);
    for (const code of ['42601', '22P02', '57014', '23505']) expect(isReplicaFault({ code })).toBe(false);
    expect(isReplicaFault(new Error('The client went away before the response.'))).toBe(false);
    expect(isReplicaFault(undefined)).toBe(false);
  });

  it('takes a replica out of rotation only when it is gone, not for one read’s conflict or a write sent to it', () => {
    expect(replicaIsDown({ code: 'ECONNREFUSED' })).toBe(true);
    expect(replicaIsDown({ code: '57P01' })).toBe(true);
    for (const code of ['40001', '25006', '3D000']) expect(replicaIsDown({ code })).toBe(false);
  });

  it('names a replica by host, port and database, never its password', () => {
    expect(replicaName('postgres://u:secret@replica-1:5433/ams')).toBe('replica-1:5433/ams');
    expect(replicaName('postgresql://replica-2/ams')).toBe('replica-2:5432/ams');
  });
});

import type { Database } from '@ams/db';
import { createTestPglite } from '../../src/test-pglite';

const inMemory = { dataDir: 'memory://', dbCancelAbandonedReads: true };

/**
 * The jest worker's one PGlite, as its files take it in turn. Two leases in one file stand for two
 * files of a worker: the second createTestPglite is what the next file's would be.
 */
describe("a test file's lease on the worker's PGlite", () => {
  const opened: Database[] = [];
  const open = async () => {
    const db = await createTestPglite(inMemory);
    opened.push(db);
    return db;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.close()));
  });

  it("hands the next file a clean session and refuses the last file's late statements", async () => {
    const first = await open();
    await first.knex.raw("SET application_name = 'left behind'");
    await first.knex.raw('BEGIN');
    await first.knex.raw('CREATE TABLE lease_probe (n int)');

    const second = await open();
    // The open transaction was rolled back, the setting reset, the schema migrated.
    expect((await second.knex.raw("SELECT to_regclass('lease_probe') AS t")).rows).toEqual([{ t: null }]);
    expect((await second.knex.raw('SHOW application_name')).rows[0].application_name).toBe('');
    expect((await second.knex.raw("SELECT to_regclass('memories') IS NOT NULL AS migrated")).rows).toEqual([{ migrated: true }]);
    await expect(first.knex.raw('SELECT 1')).rejects.toThrow("this test file's PGlite lease has ended");
  });

  it("gives back the file's own Dates, objects and errors, and takes its Dates as parameters", async () => {
    const db = await open();
    const at = new Date('2026-11-26T12:34:56.789Z');
    const { rows } = await db.knex.raw(`SELECT ?::timestamptz AS at, '{"a": [1, {"b": true}]}'::jsonb AS doc`, [at]);
    expect(rows[0].at).toBeInstanceOf(Date);
    expect(rows[0].at.getTime()).toBe(at.getTime());
    expect(Object.getPrototypeOf(rows[0].doc)).toBe(Object.prototype);
    expect(rows[0].doc.a).toBeInstanceOf(Array);
    expect(rows[0].doc).toStrictEqual({ a: [1, { b: true }] });

    const failure = await db.knex.raw('SELECT 1/0').catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).toMatchObject({ code: '22012', message: expect.stringContaining('division by zero') });
  });
});

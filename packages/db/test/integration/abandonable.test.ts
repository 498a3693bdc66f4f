import { abandonable, createDatabase, createPgliteDatabase, Database, Knex } from '../../src';
import { openRunDatabase } from './fixtures';

const running = (db: Knex, marker: string) =>
  db.raw(`select count(*)::int as n from pg_stat_activity where state = 'active' and query like ? and pid <> pg_backend_pid()`, [`%${marker}%`]).then((r) => r.rows[0].n as number);

/** (packages/db's tests do not depend on @ams/testing, which depends on this package.) */
async function waitFor(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}


describe('abandonable (PostgreSQL)', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openRunDatabase();
  });
  afterAll(() => db.close());

  it('cancels the statement running when the signal fires, rejecting with its reason; the pool serves on', async () => {
    const controller = new AbortController();
    const marker = `abandon_${Date.now()}`;
    const query = abandonable(db.knex, controller.signal).raw(`select pg_sleep(60) /* ${marker} */`);
    const outcome = query.then(() => 'finished', (err: unknown) => err);
    await waitFor(async () => (await running(db.knex, marker)) === 1);
    const reason = new Error('nobody waits');
    controller.abort(reason);
    expect(await outcome).toBe(reason);
    await waitFor(async () => (await running(db.knex, marker)) === 0);
    expect((await db.knex.raw('select 1 as one')).rows[0].one).toBe(1);
  });

  it("never cancels the next request's statement of the same text, even when the abandoned one ends as its cancel is sent", async () => {
    // One connection: the next request runs on the backend the abandoned one just used.
    const single = await createDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '', dbPoolMax: 1 });
    try {
      for (const abortAfterMs of [285, 290, 295, 298, 300, 302, 305]) {
        const sql = `select pg_sleep(0.3) /* same_text */`;
        const controller = new AbortController();
        const abandoned = abandonable(single.knex, controller.signal).raw(sql).catch(() => undefined);
        const next = abandonable(single.knex, new AbortController().signal).raw(sql);
        await new Promise((r) => setTimeout(r, abortAfterMs));
        controller.abort(new Error('gone'));
        await abandoned;
        await expect(next).resolves.toBeDefined();
      }
    } finally {
      await single.close();
    }
  });

  it('refuses a query once the signal has fired, and leaves the unbound database alone', async () => {
    const controller = new AbortController();
    const reason = new Error('gone');
    controller.abort(reason);
    await expect(abandonable(db.knex, controller.signal).raw('select 1')).rejects.toBe(reason);
    expect((await db.knex.raw('select 1 as one')).rows[0].one).toBe(1);
    expect(abandonable(db.knex, undefined)).toBe(db.knex);
  });

  it("tells db's query listeners about bound queries, and hangs no listener on db's client", async () => {
    const before = (db.knex.client as { listenerCount(e: string): number }).listenerCount('query');
    const seen: string[] = [];
    const listener = (q: { sql: string }) => seen.push(q.sql);
    db.knex.on('query', listener);
    try {
      await abandonable(db.knex, new AbortController().signal).raw('select 42');
      for (let i = 0; i < 50; i++) abandonable(db.knex, new AbortController().signal);
    } finally {
      db.knex.off('query', listener);
    }
    expect(seen).toEqual(['select 42']);
    expect((db.knex.client as { listenerCount(e: string): number }).listenerCount('query')).toBe(before);
  });

  it('abandons a transaction begun on the bound db as a whole: its running statement cancelled, nothing kept', async () => {
    await db.knex.raw('create table if not exists abandon_probe (marker text)');
    const controller = new AbortController();
    const marker = `abandon_trx_${Date.now()}`;
    const outcome = abandonable(db.knex, controller.signal)
      .transaction(async (trx) => {
        await trx('abandon_probe').insert({ marker });
        await trx.raw(`select pg_sleep(60) /* ${marker} */`);
      })
      .then(() => 'finished', (err: unknown) => err);
    await waitFor(async () => (await running(db.knex, marker)) === 1);
    const reason = new Error('nobody waits');
    controller.abort(reason);
    expect(await outcome).toBe(reason);
    await waitFor(async () => (await running(db.knex, marker)) === 0);
    expect(await db.knex('abandon_probe').where({ marker })).toEqual([]);
  });
});

describe('abandonable (PGlite: nothing to cancel, the steps left are skipped)', () => {
  let db: Database;
  beforeAll(async () => {
    db = await createPgliteDatabase('memory://');
  }, 60_000);
  afterAll(() => db.close());

  it('refuses queries once the signal has fired', async () => {
    const controller = new AbortController();
    const bound = abandonable(db.knex, controller.signal);
    expect((await bound.raw('select 1 as one')).rows[0].one).toBe(1);
    const reason = new Error('gone');
    controller.abort(reason);
    await expect(bound.raw('select 1')).rejects.toBe(reason);
    expect((await db.knex.raw('select 1 as one')).rows[0].one).toBe(1);
  });
});

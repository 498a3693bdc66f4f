import { cancelling, createDatabase, createPgliteDatabase, Database, detachedFromRequest, Knex, whileReading } from '../../src';
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


describe('reads stopped with their signal (PostgreSQL)', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openRunDatabase();
  });
  afterAll(() => db.close());

  it('cancels the statement running when the signal fires, rejecting with its reason; the pool serves on', async () => {
    const controller = new AbortController();
    const marker = `abandon_${Date.now()}`;
    const outcome = whileReading(controller.signal, () => db.knex.raw(`select pg_sleep(60) /* ${marker} */`).then(() => 'finished')).catch((err: unknown) => err);
    await waitFor(async () => (await running(db.knex, marker)) === 1);
    const reason = new Error('nobody waits');
    controller.abort(reason);
    expect(await outcome).toBe(reason);
    await waitFor(async () => (await running(db.knex, marker)) === 0);
    expect((await db.knex.raw('select 1 as one')).rows[0].one).toBe(1);
  });

  it("never cancels the next request's statement of the same text, even when the abandoned one ends as its cancel is sent", async () => {
    // The race, forced step by step: the abandoned statement ends on the server after its cancel
    // was sent but before it lands; the next request's identical statement is queued for the same
    // (only) connection. The cancel must land before that connection serves anyone else.
    const single = await createDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '', dbPoolMax: 1 });
    const first = await createDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '', dbPoolMax: 1 });
    const second = await createDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '', dbPoolMax: 1 });
    const client = single.knex.client as { pool: { numPendingAcquires(): number } };
    const send = cancelling.send;
    const lockId = 29_000_002;
    const sql = `select pg_advisory_xact_lock(${lockId}) /* same_text */`;
    /** Sessions queued for the advisory lock; with `text`, only those running that statement. */
    const waitingOnLock = (text?: string) =>
      db.knex
        .raw(
          `select count(*)::int as n from pg_locks l join pg_stat_activity a using (pid)
            where l.locktype = 'advisory' and l.objid = ? and not l.granted and (?::text is null or a.query = ?)`,
          [lockId, text ?? null, text ?? null],
        )
        .then((r) => r.rows[0].n as number);
    let firstLock: Knex.Transaction | undefined;
    let secondLock: Knex.Transaction | undefined;
    try {
      // The lock the abandoned statement waits on, and a second holder queued behind it: when the
      // first holder lets go, the abandoned statement runs and ends, and the second takes the lock,
      // so the next statement (same text) will wait on it, running when the cancel lands.
      firstLock = await first.knex.transaction();
      await firstLock.raw('select pg_advisory_xact_lock(?)', [lockId]);
      const controller = new AbortController();
      const abandoned = whileReading(controller.signal, () => single.knex.raw(sql).then(() => 'ended')).catch((err: unknown) => err);
      await waitFor(async () => (await waitingOnLock()) === 1);
      secondLock = await second.knex.transaction();
      const secondHolds = secondLock.raw('select pg_advisory_xact_lock(?)', [lockId]).then(() => undefined);
      await waitFor(async () => (await waitingOnLock()) === 2);
      const next = whileReading(new AbortController().signal, () => single.knex.raw(sql).then(() => 'ended')).catch((err: unknown) => err);
      await waitFor(async () => client.pool.numPendingAcquires() === 1);

      // The cancel is sent (its connection held at the door), then the abandoned statement ends.
      let openDoor!: () => void;
      const door = new Promise<void>((resolve) => (openDoor = resolve));
      let cancelSent = false;
      let cancelLanded = false;
      cancelling.send = async (...args) => {
        cancelSent = true;
        await door;
        await send(...args);
        cancelLanded = true;
      };
      controller.abort(new Error('gone'));
      await waitFor(async () => cancelSent);
      await firstLock.commit();
      firstLock = undefined;
      await secondHolds;
      // The abandoned statement has ended on the server. A round trip later its reply has reached this
      // process too: a connection released now would already carry the next statement to the server.
      await db.knex.raw('select 1');
      // Either the connection is still held for the cancel (pending acquire), or the next statement got
      // it: then let the cancel land only once that statement is running, where it would stop it.
      await waitFor(async () => client.pool.numPendingAcquires() === 1 || (await waitingOnLock(sql)) === 1);
      openDoor();
      await waitFor(async () => cancelLanded);
      // It ended on the server, but nobody waits for it: its result is refused.
      expect(await abandoned).toEqual(new Error('gone'));
      await secondLock.commit();
      secondLock = undefined;
      expect(await next).toBe('ended');
    } finally {
      cancelling.send = send;
      await firstLock?.rollback();
      await secondLock?.rollback();
      await Promise.all([single.close(), first.close(), second.close()]);
    }
  });

  it('refuses a query once the signal has fired, and leaves the unbound database alone', async () => {
    const controller = new AbortController();
    const reason = new Error('gone');
    controller.abort(reason);
    await expect(whileReading(controller.signal, () => db.knex.raw('select 1').then((r) => r))).rejects.toBe(reason);
    expect((await db.knex.raw('select 1 as one')).rows[0].one).toBe(1);
  });

  it('leaves work a read starts outside it (detachedFromRequest) running once the read is abandoned', async () => {
    const controller = new AbortController();
    const reason = new Error('gone');
    let background: Promise<number> | undefined;
    const read = whileReading(controller.signal, async () => {
      background = detachedFromRequest(async () => {
        await new Promise((r) => setTimeout(r, 50));
        return (await db.knex.raw('select 7 as n')).rows[0].n as number;
      });
      controller.abort(reason);
      await db.knex.raw('select 1');
    });
    await expect(read).rejects.toBe(reason);
    expect(await background).toBe(7);
  });

  it("tells db's query listeners about a read's queries, and hangs no listener on db's client per read", async () => {
    const before = (db.knex.client as { listenerCount(e: string): number }).listenerCount('query');
    const seen: string[] = [];
    const listener = (q: { sql: string }) => seen.push(q.sql);
    db.knex.on('query', listener);
    try {
      await whileReading(new AbortController().signal, () => db.knex.raw('select 42').then((r) => r));
      for (let i = 0; i < 50; i++) whileReading(new AbortController().signal, () => undefined);
    } finally {
      db.knex.off('query', listener);
    }
    expect(seen).toEqual(['select 42']);
    expect((db.knex.client as { listenerCount(e: string): number }).listenerCount('query')).toBe(before);
  });

  it('abandons a transaction begun in a read as a whole: its running statement cancelled, nothing kept', async () => {
    await db.knex.raw('create table if not exists abandon_probe (marker text)');
    const controller = new AbortController();
    const marker = `abandon_trx_${Date.now()}`;
    const outcome = whileReading(controller.signal, () =>
      db.knex.transaction(async (trx) => {
        await trx('abandon_probe').insert({ marker });
        await trx.raw(`select pg_sleep(60) /* ${marker} */`);
      }),
    ).then(() => 'finished', (err: unknown) => err);
    await waitFor(async () => (await running(db.knex, marker)) === 1);
    const reason = new Error('nobody waits');
    controller.abort(reason);
    expect(await outcome).toBe(reason);
    await waitFor(async () => (await running(db.knex, marker)) === 0);
    expect(await db.knex('abandon_probe').where({ marker })).toEqual([]);
  });
});

describe('reads stopped with their signal (PGlite: nothing to cancel, the steps left are skipped)', () => {
  let db: Database;
  beforeAll(async () => {
    db = await createPgliteDatabase('memory://');
  }, 60_000);
  afterAll(() => db.close());

  it('refuses queries once the signal has fired', async () => {
    const controller = new AbortController();
    const reason = new Error('gone');
    const read = whileReading(controller.signal, async () => {
      expect((await db.knex.raw('select 1 as one')).rows[0].one).toBe(1);
      controller.abort(reason);
      await db.knex.raw('select 1');
      return 'not refused';
    });
    await expect(read).rejects.toBe(reason);
    expect((await db.knex.raw('select 1 as one')).rows[0].one).toBe(1);
  });
});

import crypto from 'node:crypto';
import { accountsRepository, createPgliteDatabase, Database, migrateLatest, webhooksRepository } from '../../src';
import { openRunDatabase } from './fixtures';

/** On both backends: PGlite (knex-pglite) answers del() without a row count, so delete must not rely on one. */
describe.each([
  ['PostgreSQL', openRunDatabase],
  ['PGlite', async () => {
    const db = await createPgliteDatabase('memory://');
    await migrateLatest(db.knex);
    return db;
  }],
])('webhooksRepository.delete on %s', (_name, open: () => Promise<Database>) => {
  let db: Database;
  beforeAll(async () => {
    db = await open();
  }, 120_000);
  afterAll(() => db.close());

  it('answers true when it deleted the webhook, false when there was none', async () => {
    const account = (await accountsRepository.insert(db.knex, { email: `wh-${crypto.randomUUID()}@example.com`, passwordHash: null }))!;
    const hook = await webhooksRepository.insert(db.knex, account.id, { url: 'https://hooks.example.com/x' });
    expect(await webhooksRepository.delete(db.knex, account.id, hook.id)).toBe(true);
    expect(await webhooksRepository.delete(db.knex, account.id, hook.id)).toBe(false);
    expect(await webhooksRepository.delete(db.knex, crypto.randomUUID(), crypto.randomUUID())).toBe(false);
  });
});

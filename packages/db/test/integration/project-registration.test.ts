import { Database, projectsRepository } from '../../src';
import { implicitProjectsUnregistered } from '../../src/migrations/20261125_028_implicit_projects_unregistered';
import { openRunDatabase, tenant } from './fixtures';

/** Which projects a registration may complete: those only a write made. */
describe('project registration', () => {
  let db: Database;
  let accountId: string;

  beforeAll(async () => {
    db = await openRunDatabase();
    accountId = (await tenant(db)).accountId;
  });
  afterAll(() => db.close());

  it('a write makes an unregistered project; a registration completes it once', async () => {
    const implicit = await projectsRepository.ensureBySlug(db.knex, accountId, 'written');
    expect(implicit.registered).toBe(false);
    const fields = { accountId, slug: 'written', name: 'Written', description: 'd', stack: { languages: ['ts'] }, repoUrl: 'r', metadata: { a: 1 } };
    const completed = await projectsRepository.completeRegistration(db.knex, fields);
    expect(completed).toMatchObject({ id: implicit.id, registered: true, name: 'Written', description: 'd', stack: { languages: ['ts'] }, repo_url: 'r', metadata: { a: 1 } });
    expect(await projectsRepository.completeRegistration(db.knex, { ...fields, name: 'Again' })).toBeUndefined();
    expect((await projectsRepository.ensureBySlug(db.knex, accountId, 'written')).registered).toBe(true);
  });

  it('the data migration marks the projects that only a write could have made, and no other', async () => {
    const insert = (slug: string, row: Record<string, unknown> = {}) => db.knex('projects').insert({ account_id: accountId, slug, name: slug, ...row });
    await insert('legacy-written');
    await insert('legacy-named', { name: 'Named' });
    await insert('legacy-described', { description: 'kept' });
    await insert('legacy-stacked', { stack: { languages: ['go'] } });
    await insert('legacy-linked', { repo_url: 'https://git.example/x' });
    await insert('legacy-tagged', { metadata: { k: 1 } });
    // Run in a transaction rolled back afterwards: the statement spans every account of the run's database.
    const trx = await db.knex.transaction();
    try {
      for (const statement of implicitProjectsUnregistered.up) await trx.raw(statement);
      const rows: Array<{ slug: string; registered: boolean }> = await trx('projects').where({ account_id: accountId }).whereLike('slug', 'legacy-%').select('slug', 'registered').orderBy('slug');
      expect(Object.fromEntries(rows.map((r) => [r.slug, r.registered]))).toEqual({
        'legacy-described': true,
        'legacy-linked': true,
        'legacy-named': true,
        'legacy-stacked': true,
        'legacy-tagged': true,
        'legacy-written': false,
      });
    } finally {
      await trx.rollback();
    }
  });
});

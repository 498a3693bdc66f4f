import type { Knex } from 'knex';

export interface AccountRow {
  id: string;
  email: string;
  password_hash: string | null;
  created_at: Date;
  updated_at: Date;
}

export const accountsRepository = {
  /** Returns undefined when the email is taken (case-insensitively). */
  async insert(db: Knex, input: { email: string; passwordHash: string | null }): Promise<AccountRow | undefined> {
    const rows = await db('accounts')
      .insert({ email: input.email, password_hash: input.passwordHash })
      .onConflict(db.raw('(lower(email))'))
      .ignore()
      .returning('*');
    return rows[0] as AccountRow | undefined;
  },

  /** Until the transaction ends, no other can add an account: serialises concurrent first starts. */
  async lockAgainstInserts(trx: Knex): Promise<void> {
    await trx.raw('LOCK TABLE accounts IN SHARE ROW EXCLUSIVE MODE');
  },

  /** Sign-in by email (case-insensitive, as registration compares them). */
  async findByEmail(db: Knex, email: string): Promise<AccountRow | undefined> {
    return db('accounts').whereRaw('lower(email) = lower(?)', [email]).first();
  },

  async exists(db: Knex, id: string): Promise<boolean> {
    return Boolean(await db('accounts').where({ id }).first('id'));
  },

  async count(db: Knex): Promise<number> {
    const row = await db('accounts').count<{ count: number }[]>('* as count').first();
    return Number(row?.count ?? 0);
  },

  /** The service's operator: the oldest account (the one the first start's bootstrap key belongs to). */
  async operatorId(db: Knex): Promise<string | undefined> {
    const row = await db('accounts').select('id').orderBy([{ column: 'created_at' }, { column: 'id' }]).first();
    return row?.id as string | undefined;
  },
};

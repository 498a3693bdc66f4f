import type { Knex } from 'knex';
import type { Statement } from './render';

const ROLLED_BACK = Symbol('rolled back');

/**
 * Knex's own `query` event hears every statement sent on a knex instance, its transactions' too.
 * knex runs a transaction begun inside another as a savepoint: shown as the BEGIN … COMMIT it is
 * when the function is called on a database, as production calls it.
 */
const asTopLevel = (sql: string) =>
  sql.replace(/^SAVEPOINT \S+?;?$/i, 'BEGIN;').replace(/^RELEASE SAVEPOINT \S+?;?$/i, 'COMMIT;').replace(/^ROLLBACK TO SAVEPOINT \S+?;?$/i, 'ROLLBACK;');

export class Recorder {
  private sink: Statement[] | undefined;

  constructor(private readonly db: Knex) {
    db.on('query', (q: { sql: string; bindings?: unknown[] }) => this.sink?.push({ sql: asTopLevel(q.sql.trim()), bindings: q.bindings ?? [] }));
  }

  /**
   * The statements `call` sends, run in a transaction rolled back afterwards: every call finds the
   * seeded rows as they were, whatever the calls before it wrote.
   */
  async statementsOf(call: (db: Knex) => Promise<unknown>): Promise<Statement[]> {
    const heard: Statement[] = [];
    try {
      await this.db.transaction(async (trx) => {
        this.sink = heard;
        try {
          await call(trx);
        } finally {
          this.sink = undefined;
        }
        throw ROLLED_BACK;
      });
    } catch (err) {
      if (err !== ROLLED_BACK) throw err;
    }
    return heard;
  }
}

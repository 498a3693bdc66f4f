import type { Db } from '@ams/db';

export type { Caller } from '@ams/memories';

/** The database these rules read and write (for a read, the caller may bind it to its request). */
export interface EntityDeps {
  db: Db;
}

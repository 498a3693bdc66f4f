import type { Knex } from 'knex';
import type { CommonWords } from '../../src/common-words';

/** What an entry's arguments may use besides fixed values: the capture's own helpers. */
export interface EntryContext {
  /** A closed CommonWords: keyword ranking's memory, without its background warm-up (not a request's statement). */
  words: CommonWords;
}

/** One call of a repository function: the arguments after `db`, and a name when a function has several. */
export interface Call<A extends unknown[]> {
  name?: string;
  args: A | ((c: EntryContext) => A);
  /** Why the call sends no statement of its own (it builds a part of another's). */
  noStatement?: string;
  /** A part of the SQL that changes with every run (a name made from the time), and the placeholder it is replaced by. */
  mask?: [RegExp, string];
}

type Fn = (db: Knex, ...args: never[]) => Promise<unknown>;

/**
 * A repository's calls, one list per function: a function without its entry fails the typecheck
 * (and the generator, which names it), so every statement has its place in packages/db/sql.
 */
export type Entries<R> = { [K in keyof R]: R[K] extends (db: never, ...args: infer A) => Promise<unknown> ? Array<Call<A>> : never };

/** A repository object (the exported `xRepository`) and its entries. */
export interface RepositoryEntries {
  name: string;
  repository: Record<string, Fn>;
  entries: Record<string, Array<Call<unknown[]>>>;
}

export const entriesOf = <R extends object>(name: string, repository: R, entries: Entries<R>): RepositoryEntries => ({
  name,
  repository: repository as unknown as Record<string, Fn>,
  entries: entries as unknown as Record<string, Array<Call<unknown[]>>>,
});

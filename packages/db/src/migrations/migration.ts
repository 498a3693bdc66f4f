/** A schema change: statements run in order inside one transaction. Immutable once landed. */
export interface Migration {
  name: string;
  up: string[];
}

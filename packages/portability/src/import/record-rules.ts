import { EXPORT_KINDS, type ExportKind } from '@ams/db';

/** The record types of an export file, in the order it writes them. */
export const RECORD_TYPES = ['header', ...EXPORT_KINDS] as const;
export type RecordType = 'header' | ExportKind;

interface RecordProblem {
  field: string;
  message: string;
}

/**
 * How one record of a file is checked, as a create checks its body: the API's schemas hold these
 * rules (the same ones its routes apply), so a record and a request are judged alike.
 */
export interface RecordRules {
  /** Every string and key PostgreSQL could not store, and nesting too deep, with dotted field paths. */
  unsafeText(parsed: unknown): RecordProblem[];
  /** The record as its type's schema reads it (unknown members dropped, values converted), or every problem. */
  check(type: RecordType, parsed: object): { value: Record<string, unknown> } | { problems: RecordProblem[] };
}

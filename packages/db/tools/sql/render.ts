import { format } from 'sql-formatter';

/** A statement as the driver was sent it: PostgreSQL's `$n` placeholders and their values. */
export interface Statement {
  sql: string;
  bindings: readonly unknown[];
}

/** Names shown for argument values too long to print (a memory row, the keyword ranking's memory). */
export const LABELS = new WeakMap<object, string>();

/** Names shown for fixed ids (fixtures.ts fills it). */
export const NAMES = new Map<string, string>();

/** A pgvector literal of more than a few components, shortened wherever it is printed. */
const LONG_VECTOR = /\[(?:-?[\d.e+-]+,){8,}-?[\d.e+-]+\]/g;
const shortVectors = (text: string) => text.replace(LONG_VECTOR, (v) => `[…${v.split(',').length} numbers]`);

const quote = (text: string) => `'${shortVectors(text).replaceAll("'", "''")}'`;

/** PostgreSQL's array literal of a bound JS array (as the driver sends it). */
function arrayLiteral(values: readonly unknown[]): string {
  const element = (v: unknown): string =>
    v === null || v === undefined
      ? 'NULL'
      : Array.isArray(v)
        ? arrayLiteral(v)
        : typeof v === 'number'
          ? String(v)
          : `"${String(v instanceof Date ? v.toISOString() : v).replace(/["\\]/g, '\\$&')}"`;
  return `{${values.map(element).join(',')}}`;
}

/** A bound value as the SQL literal it stands for. */
export function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof Date) return quote(v.toISOString());
  if (Buffer.isBuffer(v)) return `'\\x${v.toString('hex')}'`;
  if (Array.isArray(v)) return quote(arrayLiteral(v));
  if (typeof v === 'object') return quote(JSON.stringify(v));
  return quote(String(v));
}

const TRANSACTION_CONTROL = /^(BEGIN|COMMIT|ROLLBACK);?$/i;

/** One statement, its parameters inlined, laid out by sql-formatter; `;`-terminated. */
export function renderStatement(s: Statement): string {
  if (TRANSACTION_CONTROL.test(s.sql.trim())) return `${s.sql.trim().replace(/;$/, '').toUpperCase()};`;
  const params = Object.fromEntries(s.bindings.map((b, i) => [String(i + 1), literal(b)]));
  const text = format(s.sql, { language: 'postgresql', keywordCase: 'upper', dataTypeCase: 'lower', functionCase: 'lower', params });
  return `${text.replace(/;\s*$/, '')};`;
}

/** An argument as the entry's comment shows it. */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (typeof v === 'string') return NAMES.get(v) ?? quote(v);
  if (typeof v !== 'object') return String(v);
  const label = LABELS.get(v);
  if (label) return label;
  if (v instanceof Date) return `Date(${v.toISOString()})`;
  if (Array.isArray(v)) return `[${v.map(describe).join(', ')}]`;
  const fields = Object.entries(v).filter(([, x]) => x !== undefined);
  return fields.length ? `{ ${fields.map(([k, x]) => `${k}: ${describe(x)}`).join(', ')} }` : '{}';
}

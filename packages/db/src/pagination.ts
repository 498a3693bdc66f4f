import type { Knex } from 'knex';

export interface PageParams {
  limit: number;
  offset: number;
  /** Opaque keyset cursor from a previous page's next_cursor; when given, offset is ignored. */
  cursor?: Cursor;
}

export interface Cursor {
  createdAt: string;
  id: string;
}

export interface Page<T> {
  rows: T[];
  hasMore: boolean;
  nextCursor: string | null;
  totalCount: number;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.createdAt, c.id])).toString('base64url');
}

/** Returns undefined for anything that is not a cursor this service issued. */
export function decodeCursor(raw: string): Cursor | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
    const [createdAt, id] = parsed;
    if (typeof createdAt !== 'string' || Number.isNaN(Date.parse(createdAt))) return undefined;
    if (typeof id !== 'string' || !/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    return { createdAt, id };
  } catch {
    return undefined;
  }
}

/**
 * Newest first, id as tie-breaker; `filtered` holds the WHERE clauses (always account-scoped).
 * Two statements: the total, and the page (limit + 1 rows tells whether more follow).
 * Relies on the (account_id, created_at DESC, id DESC) index each listed table has.
 */
export async function paginate<T extends { id: string }>(
  filtered: Knex.QueryBuilder,
  table: string,
  params: PageParams,
): Promise<Page<T>> {
  const countRow = await filtered.clone().clearSelect().clearOrder().count<{ count: number }[]>('* as count').first();
  const page = filtered
    .clone()
    .select(`${table}.*`)
    // Microsecond precision survives the round trip through the cursor (a JS Date would not).
    .select(
      filtered.client.raw(`to_char(${table}.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS _cursor_at`),
    )
    .orderBy([
      { column: `${table}.created_at`, order: 'desc' },
      { column: `${table}.id`, order: 'desc' },
    ])
    .limit(params.limit + 1);
  if (params.cursor) {
    page.whereRaw(`(${table}.created_at, ${table}.id) < (?::timestamptz, ?::uuid)`, [
      params.cursor.createdAt,
      params.cursor.id,
    ]);
  } else if (params.offset > 0) {
    page.offset(params.offset);
  }
  const rows = (await page) as Array<T & { _cursor_at: string }>;
  const hasMore = rows.length > params.limit;
  const kept = rows.slice(0, params.limit);
  const last = kept[kept.length - 1];
  return {
    rows: kept.map(({ _cursor_at: _c, ...row }) => row as unknown as T),
    hasMore,
    nextCursor: hasMore && last ? encodeCursor({ createdAt: last._cursor_at, id: last.id }) : null,
    totalCount: Number(countRow?.count ?? 0),
  };
}

/**
 * WAL positions (LSNs) as bigints: PostgreSQL prints them as two hex halves, `16/B374D848`.
 * A position compares as a number: higher is later in the primary's history.
 */
export type Lsn = bigint;

export function parseLsn(text: string): Lsn {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (!m) throw new Error(`not a WAL position: ${JSON.stringify(text)}`);
  return (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}

export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** Fixed-width hex: compares as a string in the same order as the position (what Redis compares). */
export const lsnKey = (lsn: Lsn): string => lsn.toString(16).padStart(16, '0');
export const lsnFromKey = (key: string): Lsn => BigInt(`0x${key}`);

/** The WAL's page and segment sizes (wal_block_size, wal_segment_size), read once from the primary. */
export interface WalLayout {
  blockSize: number;
  segmentSize: number;
}

const SHORT_PAGE_HEADER = 24n;
const LONG_PAGE_HEADER = 40n;

/**
 * The end of the WAL written so far, from pg_current_wal_insert_lsn(). At a page boundary that
 * function points past the new page's header (24 bytes; 40 on a segment's first page) though no
 * record has reached the page, while a replica that replayed everything reports the boundary
 * itself: the boundary is the position to compare. No record ends 24 or 40 bytes into a page
 * (there is no data on it before its header), so nothing else is moved.
 */
export function walEnd(insertLsn: Lsn, layout: WalLayout): Lsn {
  const page = insertLsn % BigInt(layout.blockSize);
  const segment = insertLsn % BigInt(layout.segmentSize);
  if (segment === LONG_PAGE_HEADER || (page === SHORT_PAGE_HEADER && segment !== SHORT_PAGE_HEADER)) return insertLsn - page;
  return insertLsn;
}

import type { PgliteSession } from '@ams/db';

/**
 * The worker's PGlite as one test file sees it. The PGlite lives outside the file's sandbox
 * (test/environment.js), in the realm of the jest worker, whose built-ins are not the file's: a Date
 * it returns fails the file's `instanceof Date`, and a Date the file binds fails PGlite's. So values
 * cross here: bound parameters as PGlite's realm reads them, results and errors as the file's own.
 * Once `holds()` turns false (the worker's next file took the session), every call is refused: a
 * statement a finished file sends late must not land in the next file's session.
 */
export function leasedSession(session: PgliteSession, holds: () => boolean): PgliteSession {
  const guarded = async <T>(run: () => Promise<T>): Promise<T> => {
    if (!holds()) throw new Error("this test file's PGlite lease has ended: the worker's next file holds the session");
    try {
      return toFileRealm(await run()) as T;
    } catch (err) {
      throw toFileRealmError(err);
    }
  };
  return {
    waitReady: Promise.resolve(),
    query: ((sql: string, params?: unknown[], options?: object) =>
      guarded(() => session.query(sql, params?.map(toSessionRealm), options))) as PgliteSession['query'],
    exec: ((sql: string, options?: object) => guarded(() => session.exec(sql, options))) as PgliteSession['exec'],
    // The session outlives the file: the next one resets it.
    close: async () => undefined,
  };
}

const tag = (value: object) => Object.prototype.toString.call(value);

/** A bound parameter as PGlite's realm serializes it: Dates as ISO text, bytes as a Buffer (a Node built-in, shared by all realms). */
function toSessionRealm(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (tag(value) === '[object Date]') return (value as Date).toISOString();
  if (ArrayBuffer.isView(value)) return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (Array.isArray(value)) return value.map(toSessionRealm);
  return value;
}

/** A result rebuilt of the file's own objects: rows, their Dates and JSON values. */
function toFileRealm(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (tag(value) === '[object Date]') return new Date((value as Date).getTime());
  if (ArrayBuffer.isView(value)) return Buffer.from(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
  // Array.from, not map: an array's map builds its result in the array's own realm.
  if (Array.isArray(value)) return Array.from(value, toFileRealm);
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) copy[key] = toFileRealm(field);
  return copy;
}

/** PGlite's DatabaseError as an Error of the file's, with its fields (code, constraint, detail…). */
function toFileRealmError(err: unknown): unknown {
  if (err === null || typeof err !== 'object' || err instanceof Error) return err;
  const source = err as Error;
  return Object.assign(new Error(source.message), toFileRealm(source) as object, { name: source.name, stack: source.stack });
}

import { ApiError } from '@ams/core';

/** Deeper JSON than this is refused before anything recursive (joi, JSON.stringify, SQL builders) sees it. */
const MAX_JSON_DEPTH = 32;
/** More problems than this in one request are not worth listing. */
const MAX_DETAILS = 20;

// NUL is refused by PostgreSQL text and jsonb; a lone surrogate has no UTF-8 encoding at all.
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const UNSAFE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export interface TextProblem {
  field: string;
  message: string;
}

/** Why `s` cannot be stored as text, or undefined when it can. */
function unsafeTextReason(s: string): string | undefined {
  const m = UNSAFE_TEXT.exec(s);
  if (!m) return undefined;
  return m[0] === '\u0000' ? 'must not contain NUL characters' : 'must not contain unpaired UTF-16 surrogates';
}

const join = (path: string, key: string | number) => (path === '' ? String(key) : `${path}.${key}`);

/**
 * Every string and object key of a parsed JSON value that PostgreSQL could not store, and every
 * nesting deeper than MAX_JSON_DEPTH, with dotted field paths. Iterative, so any depth is safe to walk.
 */
export function findUnsafeText(root: unknown, rootPath = ''): TextProblem[] {
  const problems: TextProblem[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: rootPath, depth: 0 }];
  while (stack.length > 0 && problems.length < MAX_DETAILS) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const reason = unsafeTextReason(value);
      if (reason) problems.push({ field: path, message: `${path || 'value'} ${reason}` });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      problems.push({ field: path, message: `${path || 'value'} is nested more than ${MAX_JSON_DEPTH} levels deep` });
      continue;
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: join(path, i), depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(value)) {
      const reason = unsafeTextReason(key);
      if (reason) {
        problems.push({ field: path, message: `a key of ${path || 'the body'} ${reason}` });
        continue;
      }
      stack.push({ value: (value as Record<string, unknown>)[key], path: join(path, key), depth: depth + 1 });
    }
  }
  return problems;
}

/** Throws 422 validation_error naming each offending field. */
export function assertSafeText(value: unknown, rootPath = ''): void {
  const problems = findUnsafeText(value, rootPath);
  if (problems.length > 0) throw ApiError.validation(problems);
}

/** Code points, as the spec's "characters" means: an emoji is one character, not two UTF-16 units. */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

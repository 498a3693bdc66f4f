import type { Schema } from 'joi';
import { ApiError } from '@ams/core';
import { ROUTE_DOCS } from '../../src/openapi/all-route-docs';
import { RECORD_SCHEMAS } from '../../src/routes/import/import-records.schemas';
import { validate } from '../../src/validation/validate';

const OUT_OF_RANGE = ['10000-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z', '-000001-01-01T00:00:00Z'];

/** Every date member of a schema, as dotted paths (objects and array items walked). */
function dateMembers(schema: Schema): string[][] {
  const found: string[][] = [];
  const walk = (s: Schema, path: string[]) => {
    if (s.type === 'date') found.push(path);
    for (const child of (s as unknown as { $_terms: { keys?: Array<{ key: string; schema: Schema }> } }).$_terms.keys ?? []) walk(child.schema, [...path, child.key]);
    for (const item of (s as unknown as { $_terms: { items?: Schema[] } }).$_terms.items ?? []) walk(item, [...path, '0']);
  };
  walk(schema, []);
  return found;
}

const place = (path: string[], value: unknown): Record<string, unknown> =>
  path.reduceRight<unknown>((inner, key) => (key === '0' ? [inner] : { [key]: inner }), value) as Record<string, unknown>;

const members: Array<{ where: string; path: string[]; check: (input: unknown) => string[] }> = [];
for (const [route, doc] of Object.entries(ROUTE_DOCS)) {
  for (const part of ['body', 'query'] as const) {
    const schema = doc[part];
    if (!schema) continue;
    for (const path of dateMembers(schema)) {
      members.push({
        where: `${route} ${part}`,
        path,
        check: (input) => {
          try {
            validate(schema, input);
            return [];
          } catch (err) {
            return ((err as ApiError).details as Array<{ field: string; message: string }>).map((d) => `${d.field}: ${d.message}`);
          }
        },
      });
    }
  }
}
for (const [type, schema] of Object.entries(RECORD_SCHEMAS)) {
  for (const path of dateMembers(schema as Schema)) {
    members.push({
      where: `import line of type ${type}`,
      path,
      check: (input) => (schema as Schema).validate(input, { abortEarly: false }).error?.details.map((d) => `${d.path.join('.')}: ${d.message}`) ?? [],
    });
  }
}

describe('every date member of every route and import line', () => {
  it('finds the date members (so the walk below walks something)', () => {
    const names = members.map((m) => `${m.where} ${m.path.join('.')}`);
    expect(names).toEqual(expect.arrayContaining(['POST /v1/api-keys body expires_at', 'GET /v1/export query created_after', 'import line of type memory created_at', 'import line of type session started_at']));
  });

  it.each(OUT_OF_RANGE)('refuses %s, naming the field and the range', (value) => {
    for (const m of members) {
      const field = m.path.join('.');
      const errors = m.check(place(m.path, value));
      expect({ member: `${m.where} ${field}`, errors }).toEqual({ member: `${m.where} ${field}`, errors: expect.arrayContaining([expect.stringMatching(new RegExp(`^${field}: .*(within 100 years of now|valid date|ISO 8601)`))]) });
    }
  });

  it('accepts a date within the range', () => {
    const soon = new Date(Date.now() + 86_400_000).toISOString();
    for (const m of members) {
      const field = m.path.join('.');
      expect({ member: `${m.where} ${field}`, errors: m.check(place(m.path, soon)).filter((e) => e.startsWith(`${field}:`)) }).toEqual({ member: `${m.where} ${field}`, errors: [] });
    }
  });

});

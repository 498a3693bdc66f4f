import crypto from 'node:crypto';
import fc from 'fast-check';

/** The parts of joi's describe() output the generator reads. */
export interface Description {
  type: string;
  flags?: { presence?: string; only?: boolean };
  allow?: unknown[];
  rules?: Array<{ name: string; args?: { limit?: number } }>;
  keys?: Record<string, Description>;
  items?: Description[];
  matches?: Array<{ schema?: Description }>;
}

const limit = (d: Description, name: string) => d.rules?.find((r) => r.name === name)?.args?.limit;
const hasRule = (d: Description, name: string) => d.rules?.some((r) => r.name === name) ?? false;

/** Values the schema would likely accept: what gets a request past validation into the service and the database. */
function validArbitrary(d: Description, depth = 0): fc.Arbitrary<unknown> {
  if (d.flags?.only && d.allow?.length) return fc.constantFrom(...d.allow);
  switch (d.type) {
    case 'string': {
      if (hasRule(d, 'guid')) return fc.uuid();
      if (hasRule(d, 'email')) return fc.emailAddress();
      if (hasRule(d, 'uri')) return fc.webUrl({ validSchemes: ['https'] });
      if (hasRule(d, 'isoDate')) return fc.date({ min: new Date('2030-01-01'), max: new Date('2040-01-01'), noInvalidDate: true }).map((x) => x.toISOString());
      const max = Math.min(limit(d, 'max') ?? 60, 60);
      return fc.string({ minLength: Math.min(limit(d, 'min') ?? 1, max), maxLength: max, unit: 'grapheme' });
    }
    case 'number': {
      const min = limit(d, 'min') ?? -1e6;
      const max = limit(d, 'max') ?? 1e6;
      return hasRule(d, 'integer') ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'date':
      return fc.date({ min: new Date('2030-01-01'), max: new Date('2040-01-01'), noInvalidDate: true }).map((x) => x.toISOString());
    case 'array': {
      const item = d.items?.[0] ? validArbitrary(d.items[0], depth + 1) : fc.jsonValue({ maxDepth: 2 });
      return fc.array(item, { maxLength: Math.min(limit(d, 'max') ?? 5, 5) });
    }
    case 'object': {
      if (!d.keys || depth > 4) return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 });
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(d.keys)) shape[k] = validArbitrary(v, depth + 1);
      const required = Object.entries(d.keys).filter(([, v]) => v.flags?.presence === 'required').map(([k]) => k);
      return fc.record(shape, { requiredKeys: required });
    }
    case 'alternatives':
      return d.matches?.length ? fc.oneof(...d.matches.map((m) => (m.schema ? validArbitrary(m.schema, depth + 1) : fc.jsonValue()))) : fc.jsonValue();
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

const deep = (levels: number) => JSON.parse('{"a":'.repeat(levels) + '1' + '}'.repeat(levels)) as unknown;

/** Hostile values for any one field: wrong types, text PostgreSQL cannot store, huge and deep values. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom<unknown>(
    'a\u0000b',
    '\u0000',
    '\ud800',
    'x\udfff',
    '😀'.repeat(3),
    '',
    ' ',
    '%E0%A4%A',
    '../../etc/passwd',
    "'; DROP TABLE memories; --",
    null,
    true,
    -1,
    1e308,
    -0,
    [],
    {},
    ['\u0000'],
    { $gt: 'a\u0000' },
    { $in: Array.from({ length: 2000 }, (_, i) => i) },
    { $gt: 1, $lt: 'z' },
    { $exists: 'yes' },
    { $unknown: 1 },
  ),
  fc.constant(null).map(() => 'y'.repeat(60_000)),
  fc.constant(null).map(() => deep(64)),
  fc.constant(null).map(() => crypto.randomUUID()),
);

/** A body or query for a schema: mostly valid, with some fields (or extra ones) hostile. */
export function requestArbitrary(d: Description | undefined): fc.Arbitrary<Record<string, unknown>> {
  const base = d ? validArbitrary(d) : fc.constant({});
  const keys = d?.keys ? Object.keys(d.keys) : [];
  const hostileOverrides = fc.dictionary(
    keys.length ? fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 })) : fc.string({ maxLength: 8 }),
    hostileValue,
    { maxKeys: 3 },
  );
  return fc
    .tuple(base, hostileOverrides, fc.boolean())
    .map(([b, over, mutate]) => (mutate ? { ...(typeof b === 'object' && b !== null && !Array.isArray(b) ? b : {}), ...over } : (b as Record<string, unknown>)));
}

/** Path parameter values: real-looking ids and hostile segments. */
export const pathParamArbitrary: fc.Arbitrary<string> = fc.oneof(
  fc.uuid(),
  fc.constantFrom('%00', 'a%00b', '%E0%A4%A', '%', '%ED%A0%80', '..', 'default', '__proto__', 'constructor', 'x'.repeat(3000)),
  fc.string({ maxLength: 20 }).map((s) => encodeURIComponent(s) || 'x'),
);

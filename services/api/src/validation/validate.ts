import type { Schema } from 'joi';
import { ApiError } from '@ams/core';
import { traceValidation } from '../openapi/validation-trace';
import { schemaCapture } from './schema-capture';

/**
 * JSON `null` on an optional member means "absent" (docs/clients.md, "Lenient input"): dropped at the top level
 * and inside the objects of top-level arrays (batch items). Nested objects such as `metadata`
 * are user data and keep their nulls.
 */
function dropNulls(input: unknown): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === null) continue;
    out[key] = Array.isArray(value)
      ? value.map((item) =>
          item !== null && typeof item === 'object' && !Array.isArray(item)
            ? Object.fromEntries(Object.entries(item).filter(([, v]) => v !== null))
            : item,
        )
      : value;
  }
  return out;
}

const LENIENT = { abortEarly: false, convert: true, allowUnknown: true, stripUnknown: true, errors: { wrap: { label: false } } } as const;
const withLenience = new WeakMap<Schema, Schema>();

/**
 * `schema` with validate()'s preferences as its own, made once per schema: joi merges the
 * preferences passed to a validate() call into its defaults on every call, and caches those a
 * schema carries.
 */
function lenient(schema: Schema): Schema {
  let s = withLenience.get(schema);
  if (!s) withLenience.set(schema, (s = schema.prefs(LENIENT)));
  return s;
}

/**
 * Validates one part of a request against its joi schema (kept beside the route) and returns the
 * converted value. Every failure is reported, each with its dotted field path. Unknown members
 * and parameters are accepted and stripped before the service sees them (docs/clients.md, "Lenient input"); a
 * known member of the wrong type or out of range is still a 422 naming it.
 */
export function validate<T>(schema: Schema, input: unknown): T {
  traceValidation(schema);
  schemaCapture.getStore()?.(schema, input);
  const { value, error } = lenient(schema).validate(dropNulls(input ?? {}));
  if (error) {
    throw ApiError.validation(
      error.details.map((d) => ({ field: d.path.join('.') || (d.context?.key ?? ''), message: d.message })),
    );
  }
  return value as T;
}

/**
 * validate(), strict: for operator settings, where a misspelt member silently ignored would leave a
 * limit unset. Unknown members are refused (422 naming them), JSON null is kept (it means "back to
 * the default"), and nothing is converted ("5" is not 5).
 */
export function validateExact<T>(schema: Schema, input: unknown): T {
  traceValidation(schema);
  schemaCapture.getStore()?.(schema, input);
  const { value, error } = schema.validate(input ?? {}, { abortEarly: false, convert: false, allowUnknown: false, errors: { wrap: { label: false } } });
  if (error) throw ApiError.validation(error.details.map((d) => ({ field: d.path.join('.') || (d.context?.key ?? ''), message: d.message })));
  return value as T;
}

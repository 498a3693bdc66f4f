import type { Schema } from 'joi';
import { ApiError } from '@ams/core';
import { traceValidation } from '../openapi/validation-trace';

/**
 * Validates one part of a request against its joi schema (kept beside the route) and returns the
 * converted value. Every failure is reported, each with its dotted field path.
 */
export function validate<T>(schema: Schema, input: unknown): T {
  traceValidation(schema);
  const { value, error } = schema.validate(input ?? {}, { abortEarly: false, convert: true, errors: { wrap: { label: false } } });
  if (error) {
    throw ApiError.validation(
      error.details.map((d) => ({ field: d.path.join('.') || (d.context?.key ?? ''), message: d.message })),
    );
  }
  return value as T;
}

import { AsyncLocalStorage } from 'node:async_hooks';
import type { Schema } from 'joi';

/**
 * Test-time record of the joi schemas a request was validated with, so the OpenAPI tests can check
 * that each route validates with the schemas its route doc names. Off (no store) outside tests.
 */
export const validationTrace = new AsyncLocalStorage<Schema[]>();

export function traceValidation(schema: Schema): void {
  validationTrace.getStore()?.push(schema);
}

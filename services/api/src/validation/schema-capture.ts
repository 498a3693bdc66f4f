import { AsyncLocalStorage } from 'node:async_hooks';
import type { Schema } from 'joi';

/**
 * Lets a caller learn which joi schema each route validates which part of the request with, without
 * a second description of the API: run a request inside `schemaCapture.run(recorder, …)` and
 * validate() reports each (schema, input) pair to it. Outside such a run it costs one lookup.
 * The fuzz test (test/integration/fuzz.test.ts) discovers every route's schemas this way.
 */
export const schemaCapture = new AsyncLocalStorage<(schema: Schema, input: unknown) => void>();

import Joi, { Schema } from 'joi';
import { ERROR_STATUS } from '@ams/core';

/** One response of a route: what the status means, its body (a joi schema, converted) and an example. */
interface ResponseDoc {
  description: string;
  schema?: Schema;
  example?: unknown;
  /** application/json unless said. */
  contentType?: string;
  /** Response headers worth naming, e.g. Location. */
  headers?: Record<string, string>;
  /** An error status this route answers with this body instead of the API's error envelope. */
  replacesError?: boolean;
}

/**
 * What the router cannot tell about a route: its summary, the joi schemas its handler validates,
 * its success responses and the errors peculiar to it. Keyed by "METHOD /express/path" in a
 * <resource>.openapi.ts file beside the router. Method, path, scope and authentication come from
 * the router itself; 401/403/429/500, and 400/413/422 for a body, 422 for a query and 404 for a
 * path parameter, are added by the generator.
 */
export interface RouteDoc {
  summary: string;
  description?: string;
  /** Defaults to the path's first segment after the version, e.g. "memories". */
  tag?: string;
  /** The joi schemas the handler passes to validate(): the same objects, imported from *.schemas.ts. */
  body?: Schema;
  query?: Schema;
  /** Success responses by status. */
  responses: Record<number, ResponseDoc>;
  /** Error statuses beyond the automatic ones (e.g. 409), with why. */
  errors?: Partial<Record<ErrorStatus, string>>;
  /** The route dispatches to other routes' schemas (the MCP endpoint's tools): not traced against body/query. */
  dispatches?: boolean;
  /**
   * "METHOD /path" of the operation this route is a variant of (a route for existing clients answering a
   * name where the documented one takes an id, falling through to it for ids): described by that
   * operation, so not a second one in the document.
   */
  variantOf?: string;
  /** Body example for the request (documentation and MCP). */
  example?: unknown;
}

export type ErrorStatus = (typeof ERROR_STATUS)[keyof typeof ERROR_STATUS];
export type RouteDocs = Record<string, RouteDoc>;

// Response shapes: joi like the request schemas, converted the same way. Members beyond those named
// are allowed: additive response members are part of the compatibility contract (docs/decisions/0004-lenient-input-and-aliases.md).
export const uuidOut = Joi.string().guid();
export const isoTime = Joi.string().isoDate();
export const nullableIso = Joi.string().isoDate().allow(null);
export const unixTime = Joi.number().integer();
export const json = Joi.object().unknown(true);
export const strings = Joi.array().items(Joi.string());

/** A response object: the named members are present, others may be added later. */
export const shape = (keys: Record<string, Schema>, id?: string) => {
  const required = Object.entries(keys).map(([k, v]) => [k, v.$_getFlag('presence') === 'optional' ? v : v.required()]);
  const s = Joi.object(Object.fromEntries(required)).unknown(true);
  return id ? s.id(id) : s;
};

/** The list envelope of every list endpoint (object: list on memories, entities and agents). */
export const listOf = (item: Schema, withObject = false) =>
  shape({
    ...(withObject ? { object: Joi.string().valid('list') } : {}),
    data: Joi.array().items(item),
    has_more: Joi.boolean(),
    next_cursor: Joi.string().allow(null),
    total_count: Joi.number().integer(),
  });

export const errorEnvelope = shape({
  type: Joi.string().valid(...Object.keys(ERROR_STATUS)),
  message: Joi.string(),
  code: Joi.number().integer(),
  request_id: Joi.string(),
  details: Joi.array().items(shape({ field: Joi.string().allow(''), message: Joi.string() })).optional(),
});

import type { Request } from 'express';
import type { Schema } from 'joi';
import { ApiError, isUuid } from '@ams/core';

/** A path id that is not a UUID names nothing: 404, as for an unknown id (docs/api.md, "Errors"). */
export function pathId(req: Request, resource: string, param = 'id'): string {
  const id = req.params[param];
  if (typeof id !== 'string' || !isUuid(id)) throw ApiError.notFound(resource);
  return id.toLowerCase();
}

/** A path segment held to the rule its resource's references follow: one that breaks it names nothing, 404. */
export function pathRef(req: Request, schema: Schema, resource: string, param = 'id'): string {
  const { value, error } = schema.validate(req.params[param]);
  if (error) throw ApiError.notFound(resource);
  return value as string;
}

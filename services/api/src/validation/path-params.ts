import type { Request } from 'express';
import { ApiError, isUuid } from '@ams/core';

/** A path id that is not a UUID names nothing: 404, as for an unknown id (docs/api.md, "Errors"). */
export function pathId(req: Request, resource: string, param = 'id'): string {
  const id = req.params[param];
  if (typeof id !== 'string' || !isUuid(id)) throw ApiError.notFound(resource);
  return id.toLowerCase();
}

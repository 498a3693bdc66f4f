import type { Request } from 'express';
import { ApiError } from '@ams/core';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path id that is not a UUID names nothing: 404, as for an unknown id (DESIGN §4). */
export function pathId(req: Request, resource: string, param = 'id'): string {
  const id = req.params[param];
  if (typeof id !== 'string' || !UUID.test(id)) throw ApiError.notFound(resource);
  return id.toLowerCase();
}

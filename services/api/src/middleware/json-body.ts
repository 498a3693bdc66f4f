import express, { RequestHandler } from 'express';
import { ApiError } from '@ams/core';
import { assertSafeText } from '../validation/text-safety';

/**
 * JSON bodies only. A request with a body must say `application/json`; the parsed body must be an
 * object whose strings PostgreSQL can store. Parse and size failures reach the error middleware with body-parser's `type` codes.
 */
export function jsonBody(limit: string): RequestHandler[] {
  const requireJson: RequestHandler = (req, _res, next) => {
    const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
    if (hasBody && !req.is('application/json')) {
      return next(ApiError.badRequest('Content-Type must be application/json'));
    }
    next();
  };
  const requireObject: RequestHandler = (req, _res, next) => {
    if (req.body === undefined) return next();
    if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
      return next(ApiError.badRequest('Request body must be a JSON object'));
    }
    try {
      assertSafeText(req.body); // NUL, unpaired surrogates, absurd depth: 422 naming the field
    } catch (err) {
      return next(err);
    }
    next();
  };
  return [requireJson, express.json({ limit, strict: false }), requireObject];
}

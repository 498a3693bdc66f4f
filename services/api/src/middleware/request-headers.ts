import type { RequestHandler } from 'express';
import { ApiError } from '@ams/core';

/**
 * At most this many header fields a request. Node keeps only the first maxHeadersCount and drops
 * the rest without a word (so a late Authorization or Content-Type would vanish); a request that
 * reaches the cap may have lost some, so it is refused whole. http-server.ts sets the same cap.
 */
export const MAX_HEADER_COUNT = 1000;

export const limitHeaderCount: RequestHandler = (req, _res, next) => {
  if (req.rawHeaders.length / 2 >= MAX_HEADER_COUNT) {
    return next(new ApiError('request_header_too_large', `Too many request headers: at most ${MAX_HEADER_COUNT - 1} are accepted`));
  }
  next();
};

/**
 * HTTP/1.1 requires Host. Node's own check (requireHostHeader, off in http-server.ts) answers a bare
 * 400 before any middleware, and a Host dropped past the header-count cap would get that instead of
 * the 431 above: this check runs after the count, so the answer never depends on header order.
 */
export const requireHostHeader: RequestHandler = (req, _res, next) => {
  if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && req.headers.host === undefined) {
    return next(ApiError.badRequest('An HTTP/1.1 request must carry a Host header'));
  }
  next();
};

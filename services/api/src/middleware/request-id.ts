import crypto from 'node:crypto';
import type { RequestHandler } from 'express';

const MAX_LENGTH = 200;
// Printable ASCII only: the value is echoed into a response header and into logs.
const SAFE = /^[\x21-\x7e]+$/;

/** Echoes a sane client X-Request-ID, otherwise generates one; set on every response. */
export const requestId: RequestHandler = (req, res, next) => {
  const sent = req.get('x-request-id');
  req.requestId = sent && sent.length <= MAX_LENGTH && SAFE.test(sent) ? sent : crypto.randomUUID();
  res.setHeader('X-Request-ID', req.requestId);
  next();
};

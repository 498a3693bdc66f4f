import type { Response } from 'express';

/**
 * `body` as JSON through Node's own response, not express' res.json(): a POST's answer needs no ETag
 * (express hashes every body it sends to make one) or freshness check. The hot routes (create,
 * search, v2 ack) and error envelopes answer with it.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

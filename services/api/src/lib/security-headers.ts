import type { RequestHandler, Response } from 'express';

/** The headers every page this server renders for a browser carries, with its own policy. */
export function setPageSecurityHeaders(res: Response, csp: string): void {
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
}

/** Middleware form, for a page and its assets. */
export const pageSecurityHeaders =
  (csp: string): RequestHandler =>
  (_req, res, next) => {
    setPageSecurityHeaders(res, csp);
    next();
  };

import type { RequestHandler, Response } from 'express';

/**
 * A page policy that allows only this origin: its own scripts, styles, fonts and API, icons as
 * data: URIs, nothing inline, no framing. `extra` adds the page's own directives.
 */
export const sameOriginPolicy = (...extra: string[]): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    ...extra,
  ].join('; ');

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

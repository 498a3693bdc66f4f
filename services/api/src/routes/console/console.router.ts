import path from 'node:path';
import express, { Router, type Response } from 'express';
import type { AppContext } from '../../context';
import { sameOriginPolicy, setPageSecurityHeaders } from '../../lib/security-headers';

/**
 * The web console: the static bundle of packages/console (built by its `ensure-built` script on
 * install and start), public like any web page; it talks to /v1 with the user's key. Nothing in
 * it is inline, so the policy allows only this origin's own scripts, styles and API.
 */
export const CONSOLE_CSP = sameOriginPolicy("manifest-src 'self'", "form-action 'none'");

const secure = (res: Response) => setPageSecurityHeaders(res, CONSOLE_CSP);

function consoleDistDir(): string {
  return path.join(path.dirname(require.resolve('@ams/console/package.json')), 'dist');
}

/** Serves `/` (the page; routes live in the URL fragment) and the hashed assets. Unbuilt: falls through to 404. */
export function consoleRouter(_ctx: AppContext, dist = consoleDistDir()): Router {
  const router = Router();
  const sendPage = (_req: express.Request, res: Response, next: express.NextFunction) => {
    secure(res);
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile('index.html', { root: dist }, (err) => err && next());
  };
  router.get(['/', '/index.html'], sendPage);
  router.use(
    ['/assets', '/favicon.svg'],
    (_req, res, next) => {
      secure(res);
      next();
    },
  );
  router.use('/assets', express.static(path.join(dist, 'assets'), { index: false, immutable: true, maxAge: '1y', fallthrough: true }));
  router.get('/favicon.svg', (_req, res, next) => res.sendFile('favicon.svg', { root: dist }, (err) => err && next()));
  return router;
}

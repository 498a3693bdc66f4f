import type { Express, RequestHandler } from 'express';
import type { Scope } from '@ams/accounts';
import { requireAuth } from '../middleware/authenticate';

/** One route of the app as Express holds it, in OpenAPI's terms. */
export interface AppRoute {
  /** Lower-case HTTP method. */
  method: string;
  /** Express path, e.g. /v1/memories/:id. */
  path: string;
  /** The scope its requireScope guard asks for, on the route or on a router.use() in front of it. */
  scope?: Scope;
  /** Mounted before requireAuth: no key needed. */
  public: boolean;
}

/** The parts of router@2's Layer and Route this walk reads. */
interface Layer {
  handle: RequestHandler & { stack?: Layer[]; requiredScope?: Scope };
  rawPath?: string | string[];
  slash?: boolean;
  method?: string;
  route?: { path: string | string[]; methods: Record<string, boolean>; stack: Layer[] };
}

/** "METHOD /path" key of a route, e.g. "GET /v1/memories/:id" (the key of route docs). */
export const routeKey = (r: Pick<AppRoute, 'method' | 'path'>) => `${r.method.toUpperCase()} ${r.path}`;

const join = (prefix: string, path: string) => (prefix + path).replace(/\/+/g, '/').replace(/(.)\/$/, '$1');

/**
 * Every route of the app, read off Express's router stack: its method and path, whether it sits
 * before requireAuth, and the scope of the requireScope guard in front of it.
 */
export function walkRoutes(app: Express): AppRoute[] {
  const root = (app as unknown as { router: { stack: Layer[] } }).router;
  const routes: AppRoute[] = [];
  let authenticated = false;

  const walk = (stack: Layer[], prefix: string, inherited: { path: string; scope: Scope }[]) => {
    const guards = [...inherited];
    for (const layer of stack) {
      if (layer.handle === requireAuth) authenticated = true;
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        const ownScope = layer.route.stack.map((l) => l.handle.requiredScope).find(Boolean);
        for (const p of paths) {
          if (typeof p !== 'string') throw new Error(`OpenAPI: route paths must be strings (got ${String(p)})`);
          const path = join(prefix, p);
          const guard = guards.filter((g) => path === g.path || path.startsWith(`${g.path}/`)).pop();
          for (const method of Object.keys(layer.route.methods).filter((m) => m !== '_all')) {
            routes.push({ method, path, scope: ownScope ?? guard?.scope, public: !authenticated });
          }
        }
        continue;
      }
      const mount = layer.slash ? '' : typeof layer.rawPath === 'string' ? layer.rawPath : '';
      if (layer.handle.requiredScope) guards.push({ path: join(prefix, mount || '/'), scope: layer.handle.requiredScope });
      if (Array.isArray(layer.handle.stack)) walk(layer.handle.stack, join(prefix, mount), guards);
    }
  };
  walk(root.stack, '', []);
  return routes;
}

import type { Express } from 'express';

/** The parts of router 2.x's Layer and Route we read; Express does not export their types. */
interface Layer {
  route?: { path: string; _methods(): string[] };
  handle: { stack?: Layer[] };
  path?: string;
  rawPath?: unknown;
  match(path: string): boolean;
}

export interface RouteEntry {
  method: string;
  path: string;
}

const stackOf = (app: Express): Layer[] => (app as unknown as { router: { stack: Layer[] } }).router.stack;

function matches(layer: Layer, path: string): boolean {
  try {
    return layer.match(path);
  } catch {
    return false; // a malformed %-escape in a parameter: the router reports that itself
  }
}

function collect(stack: Layer[], path: string, into: Set<string>): void {
  for (const layer of stack) {
    if (layer.route) {
      if (matches(layer, path)) for (const m of layer.route._methods()) into.add(m);
    } else if (layer.handle.stack && matches(layer, path)) {
      collect(layer.handle.stack, path.slice((layer.path ?? '').length) || '/', into);
    }
  }
}

/** The methods some route of the app answers at `path` (HEAD included where GET is). */
export function allowedMethods(app: Express, path: string): string[] {
  const methods = new Set<string>();
  collect(stackOf(app), path, methods);
  return [...methods].sort();
}

/** Every route of the app, by walking the router stack: what tests use to reach every route, present and future. */
export function listRoutes(app: Express): RouteEntry[] {
  const out: RouteEntry[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const m of layer.route._methods()) if (m !== 'HEAD') out.push({ method: m, path: prefix + layer.route.path });
      } else if (layer.handle.stack) {
        walk(layer.handle.stack, prefix + (typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : ''));
      }
    }
  };
  walk(stackOf(app), '');
  return out;
}

import express, { Express, RequestHandler } from 'express';
import { documentOf, ROUTE_DOCS, routeKey, validationTrace, walkRoutes } from '@ams/api';
import type { Schema } from 'joi';

/** The jest worker's store (test/environment.js): the OpenAPI response check, made once per worker and document. */
interface ResponseCheckStore {
  openApiResponseCheck(routes: string, documentJson: () => string): RequestHandler[];
  openApiViolations: string;
}

/**
 * The worker's check for this app's document. The document follows from the app's routes (and the
 * route docs, the same code all run long), so they are its key: an app with the routes of one seen
 * before builds no document (about a second and a half of joi-to-JSON-Schema conversions).
 */
function responseCheck(app: Express): { middleware: RequestHandler[]; violationsKey: string } {
  const store = (globalThis as { __AMS_WORKER_STORE__?: ResponseCheckStore }).__AMS_WORKER_STORE__;
  if (!store) throw new Error("the test app's OpenAPI checks need the repository's jest environment (test/environment.js)");
  const middleware = store.openApiResponseCheck(JSON.stringify(walkRoutes(app)), () => JSON.stringify(documentOf(app, ROUTE_DOCS)));
  return { middleware, violationsKey: store.openApiViolations };
}

/**
 * Wraps an app so that every response it sends is checked against the OpenAPI document (status
 * listed, body matching its schema: ajv), and every route validates
 * with the joi schemas its route doc names. Findings are collected; the test app's close() fails on them.
 * The check is the jest worker's for this document (test/openapi-response-check.js): each response
 * schema compiled once per worker, when first needed, not once per app.
 */
export function withConformanceChecks(app: Express): { app: Express; violations: string[] } {
  const violations: string[] = [];
  const { middleware, violationsKey } = responseCheck(app);
  const outer = express();
  outer.set('query parser', 'simple');
  // The app's own locals stay reachable through the wrapper (tests read app.locals.load).
  outer.locals = app.locals;
  outer.use((req, res, next) => {
    // Where the shared validator files this app's findings.
    (req as unknown as Record<string, unknown>)[violationsKey] = violations;
    const traced: Schema[] = [];
    res.on('finish', () => {
      const route = req.route as { path?: unknown } | undefined;
      if (typeof route?.path !== 'string') return;
      const key = routeKey({ method: req.method, path: route.path });
      const doc = ROUTE_DOCS[key];
      const documented = [doc?.body, doc?.query];
      if (!doc?.dispatches && traced.some((s) => !documented.includes(s))) violations.push(`${key} validates with a joi schema its route doc does not name`);
    });
    validationTrace.run(traced, () => next());
  });
  // A URL that does not decode goes straight to the app, whose own answer (400 envelope) is the test's subject.
  outer.use((req, res, next) => {
    try {
      decodeURIComponent(req.path);
      next();
    } catch {
      app(req, res, next);
    }
  });
  outer.use(middleware);
  outer.use(app);
  return { app: outer, violations };
}

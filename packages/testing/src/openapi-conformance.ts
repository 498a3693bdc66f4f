import express, { Express } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { documentOf, ROUTE_DOCS, routeKey, validationTrace } from '@ams/api';
import type { Schema } from 'joi';

/**
 * Wraps an app so that every response it sends is checked against the OpenAPI document (status
 * listed, body matching its schema: express-openapi-validator, on ajv), and every route validates
 * with the joi schemas its route doc names. Findings are collected; the test app's close() fails on them.
 */
export function withConformanceChecks(app: Express): { app: Express; violations: string[] } {
  const violations: string[] = [];
  const outer = express();
  outer.set('query parser', 'simple');
  // The app's own locals stay reachable through the wrapper (tests read app.locals.load).
  outer.locals = app.locals;
  outer.use((req, res, next) => {
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
  // A URL the validator cannot decode goes straight to the app, whose own answer (400 envelope) is the test's subject.
  outer.use((req, res, next) => {
    try {
      decodeURIComponent(req.path);
      next();
    } catch {
      app(req, res, next);
    }
  });
  outer.use(
    OpenApiValidator.middleware({
      apiSpec: documentOf(app, ROUTE_DOCS) as never,
      validateRequests: false,
      validateSecurity: false,
      ignoreUndocumented: true,
      validateResponses: {
        onError: (error: Error, body: unknown, req: express.Request) =>
          violations.push(`${req.method} ${req.originalUrl}: ${error.message} — body ${JSON.stringify(body).slice(0, 300)}`),
      },
    }),
  );
  // Answered here, never reaching the app (nor its rate limiter): lets the validator load the document first.
  outer.get(WARM_UP_PATH, (_req, res) => void res.status(204).end());
  outer.use(app);
  return { app: outer, violations };
}

export const WARM_UP_PATH = '/__conformance-warm-up';

import path from 'node:path';
import express, { Express, Router } from 'express';
import Joi from 'joi';
import { pageSecurityHeaders, sameOriginPolicy } from '../lib/security-headers';
import { buildOpenApiDocument, OpenApiDocument } from './build-document';
import { json, RouteDocs } from './route-docs';

// swagger-ui-dist: the Swagger UI bundle as static files, served from here (no CDN).
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/**
 * The docs page's policy: Swagger UI's bundle, stylesheet and starter script come from this
 * origin, nothing inline; its icons are data: URIs; "Try it out" calls this origin's API only.
 */
export const DOCS_CSP = sameOriginPolicy("form-action 'self'");

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Agent Memory Service API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>
`;

export const discoveryOpenApi: RouteDocs = {
  'GET /openapi.json': {
    summary: 'This OpenAPI 3.1 document',
    tag: 'discovery',
    responses: { 200: { description: 'The document', schema: json } },
  },
  'GET /docs': {
    summary: 'Human-readable API documentation (Swagger UI)',
    tag: 'discovery',
    responses: { 200: { description: 'An HTML page', contentType: 'text/html', schema: Joi.string() } },
  },
};

/** The document of the app serving the request, built once from its router and the route docs. */
const documents = new WeakMap<Express, OpenApiDocument>();
export function documentOf(app: Express, docs: RouteDocs): OpenApiDocument {
  let doc = documents.get(app);
  if (!doc) {
    doc = buildOpenApiDocument(app, docs).document;
    documents.set(app, doc);
  }
  return doc;
}

/** Public: GET /openapi.json and the docs page with its assets. */
export function openApiRouter(docs: RouteDocs): Router {
  const router = Router();
  router.get('/openapi.json', (req, res) => {
    res.json(documentOf(req.app as Express, docs));
  });
  router.use('/docs', pageSecurityHeaders(DOCS_CSP));
  router.get('/docs', (_req, res) => {
    res.type('html').send(DOCS_PAGE);
  });
  router.use('/docs/assets', express.static(path.join(__dirname, 'docs-assets'), { index: false }), express.static(SWAGGER_UI_DIR, { index: false }));
  return router;
}

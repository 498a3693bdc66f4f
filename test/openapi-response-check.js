// The OpenAPI response check of every test app (packages/testing's openapi-conformance.ts), made once
// per jest worker and document. express-openapi-validator loads and validates the document and
// compiles a route's response schemas on its first answer: seconds a file when each app made its own.
// Loaded by test/environment.js outside the files' sandboxes, so it outlives a file; it is handed the
// app's routes and document as JSON text (parsed here, in this realm) and holds nothing of a file's:
// a finding goes to the array the file's wrapper puts on the request (VIOLATIONS), read at the app's close.
const OpenApiValidator = require('express-openapi-validator');

/** The request property the file's wrapper sets to its app's list of findings. */
const VIOLATIONS = '__amsOpenApiViolations';

/** An app's routes (walkRoutes, as JSON) -> its document's JSON text; that text -> its middleware. */
const documents = new Map();
const byDocument = new Map();

/**
 * express-openapi-validator's middleware for the document of an app with these `routes` (JSON text),
 * one per worker and document; `documentJson` builds the document's JSON text when no app with
 * these routes came before.
 */
function openApiResponseCheck(routes, documentJson) {
  if (!documents.has(routes)) documents.set(routes, documentJson());
  const json = documents.get(routes);
  let middleware = byDocument.get(json);
  if (!middleware) {
    middleware = OpenApiValidator.middleware({
      apiSpec: JSON.parse(json),
      validateRequests: false,
      validateSecurity: false,
      ignoreUndocumented: true,
      validateResponses: {
        onError: (error, body, req) =>
          req[VIOLATIONS]?.push(`${req.method} ${req.originalUrl}: ${error.message} — body ${String(JSON.stringify(body)).slice(0, 300)}`),
      },
    });
    byDocument.set(json, middleware);
  }
  return middleware;
}

module.exports = { openApiResponseCheck, VIOLATIONS };

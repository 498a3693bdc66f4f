/* global URL */
// The OpenAPI response check of every test app (packages/testing's openapi-conformance.ts), made once
// per jest worker and document: every JSON answer (res.json) of a documented operation must have its
// status listed (the code, its `NXX` or `default`) and a body matching that response's schema (ajv,
// JSON Schema 2020-12 as OpenAPI 3.1 says, ajv-formats' formats). A response documented without
// content must have no body. As express-openapi-validator did, which this replaced: 5xx answers and
// undocumented paths or methods are not checked, and the first documented path matching the URL
// (static segments before parameters) is the operation's. What differs: each status's schema is
// compiled when a response first has that status, once per worker and distinct schema, with only the
// document's components beside it; express-openapi-validator compiled every status of a route at its
// first answer, each with the whole document (~370 kB) for ajv to walk: ~20 s of a worker's CPU.
// The body checked is the one sent: the JSON text read back (a Date is its ISO string, as on the wire).
// Loaded by test/environment.js outside the files' sandboxes, so it outlives a file; it is handed the
// app's routes and document as JSON text (parsed here, in this realm) and holds nothing of a file's:
// a finding goes to the array the file's wrapper puts on the request (VIOLATIONS), read at the app's close.
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats').default;

/** The request property the file's wrapper sets to its app's list of findings. */
const VIOLATIONS = '__amsOpenApiViolations';
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function newAjv() {
  const ajv = new Ajv2020({ strict: false, strictNumbers: true, strictTuples: true, allowUnionTypes: false, validateSchema: false, coerceTypes: false, useDefaults: false });
  addFormats(ajv, { mode: 'fast' });
  // OpenAPI: a writeOnly property is never in a response.
  ajv.removeKeyword('writeOnly');
  ajv.addKeyword({ keyword: 'writeOnly', schemaType: 'boolean', errors: true, compile: (writeOnly) => (data) => !writeOnly || data == null });
  return ajv;
}

/** A media type's JSON bodies can be checked (application/json, application/problem+json, …). */
const isJson = (mediaType) => /^[^/]+\/(?:json|[^;]*\+json)\s*(?:;|$)/i.test(mediaType);

/** What answers a document's operations: matching a request to one, and its compiled checks. */
function checkerOf(document) {
  const ajv = newAjv();
  const components = document.components ?? {};
  const validators = new Map();
  /** A body schema's validator, one per distinct schema (error responses repeat the same one). */
  const validatorOf = (schema) => {
    const text = JSON.stringify(schema);
    let validate = validators.get(text);
    if (!validate) {
      // `#/components/...` references resolve against the compiled schema's root, as they do in the document.
      const root = { type: 'object', properties: { response: schema }, required: ['response'], components };
      if (text.includes('"#/paths/')) root.paths = document.paths;
      validate = ajv.compile(root);
      validators.set(text, validate);
    }
    return validate;
  };
  const base = new URL(document.servers?.[0]?.url ?? '/', 'http://x').pathname.replace(/\/$/, '');
  const escape = (s) => s.replace(/[.*+?^$()[\]|\\]/g, '\\$&');
  // Static paths before parameterised ones, as express-openapi-validator sorted them; case-insensitive
  // and with an optional trailing slash, as the wrapper's express app routes.
  const key = (p) => p.replace(/\/\{/g, '/~');
  const paths = Object.keys(document.paths ?? {})
    .sort((a, b) => (key(a).startsWith(key(b)) ? -1 : key(b).startsWith(key(a)) ? 1 : key(a) > key(b) ? 1 : -1))
    .map((p) => ({ path: p, regexp: new RegExp(`^${escape(base + p).replace(/\{[^}]+\}/g, '[^/]+?')}/?$`, 'i') }));
  /** The operation a request reaches: the first documented path its URL matches, if it has the method. */
  const operationOf = (method, url) => {
    const m = method.toLowerCase();
    if (!METHODS.has(m)) return undefined;
    const pathname = url.split('?')[0];
    const found = paths.find((p) => p.regexp.test(pathname));
    const operation = found && document.paths[found.path][m];
    return operation ? { name: `${method} ${found.path}`, operation } : undefined;
  };
  /** What is wrong with `body` sent with `status` (and content type) by this operation; undefined when nothing. */
  const problemOf = (operation, status, contentType, body) => {
    const responses = operation.responses ?? {};
    const entry = [String(status), `${String(status)[0]}XX`, 'default'].map((k) => responses[k]).find(Boolean);
    let response = entry?.$ref ? components.responses?.[entry.$ref.replace(/^.+\//, '')] : entry;
    // A response whose content holds no JSON schema does not answer with res.json: as if unlisted.
    const media = response?.content ? Object.keys(response.content).filter((t) => response.content[t]?.schema && (isJson(t) || /^(?:\*\/\*|[a-z]+\/\*)$/.test(t))) : [];
    if (response?.content && media.length === 0) response = undefined;
    if (!response) return `no schema defined for status code '${status}' in the openapi spec`;
    if (!response.content) return body === undefined ? undefined : 'response should NOT have a body';
    const sent = String(contentType ?? '').split(';')[0].trim().toLowerCase();
    const type = media.find((t) => t.toLowerCase() === sent) ?? media[0];
    if (body === undefined || body === null) return 'response body required.';
    const validate = validatorOf(response.content[type].schema);
    const wire = JSON.parse(JSON.stringify(body));
    if (validate({ response: wire })) return undefined;
    return ajv.errorsText(validate.errors, { dataVar: '' });
  };
  return { operationOf, problemOf };
}

/** An app's routes (walkRoutes, as JSON) -> its document's JSON text; that text -> its middleware. */
const documents = new Map();
const byDocument = new Map();

/**
 * The response check (as an express middleware list) for the document of an app with these `routes`
 * (JSON text), one per worker and document; `documentJson` builds the document's JSON text when no
 * app with these routes came before.
 */
function openApiResponseCheck(routes, documentJson) {
  if (!documents.has(routes)) documents.set(routes, documentJson());
  const json = documents.get(routes);
  let middleware = byDocument.get(json);
  if (!middleware) {
    const { operationOf, problemOf } = checkerOf(JSON.parse(json));
    middleware = [
      (req, res, next) => {
        const found = operationOf(req.method, req.originalUrl);
        if (!found) return next();
        const json = res.json;
        res.json = function checkedJson(body) {
          res.json = json;
          if (!res.headersSent && res.statusCode < 500) {
            const problem = problemOf(found.operation, res.statusCode, res.getHeader('content-type'), body);
            if (problem) req[VIOLATIONS]?.push(`${req.method} ${req.originalUrl}: ${problem} — body ${String(JSON.stringify(body)).slice(0, 300)}`);
          }
          return json.call(this, body);
        };
        next();
      },
    ];
    byDocument.set(json, middleware);
  }
  return middleware;
}

module.exports = { openApiResponseCheck, VIOLATIONS };

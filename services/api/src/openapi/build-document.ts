import type { Express } from 'express';
import type { Schema } from 'joi';
import { VERSION } from '@ams/core';
import { errorEnvelope, ErrorStatus, RouteDoc, RouteDocs } from './route-docs';
import { JsonSchema, toJsonSchema } from './json-schema';
import { AppRoute, routeKey, walkRoutes } from './walk-routes';

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Operation>> };
type Operation = Record<string, unknown> & { operationId: string; responses: Record<string, unknown> };

const ERROR_MEANING: Record<ErrorStatus, string> = {
  400: 'Malformed JSON, a body that is not an object, or a wrong Content-Type',
  401: 'Missing, invalid, expired or revoked API key',
  403: 'The API key lacks the scope this operation needs',
  404: 'No such resource in this account (also for ids that are not UUIDs)',
  409: 'Conflict with the current state',
  413: 'Request body over the size limit',
  431: 'Request headers (or the URL) over the size limit; answered before any route is reached',
  422: 'Validation failed: `details` names each field and what is wrong with it',
  429: 'Rate limit exceeded: wait for `Retry-After` seconds',
  500: 'Internal error: the request id identifies it in the logs',
  503: 'Overloaded (the request was shed: retry after `Retry-After` seconds), past its deadline, or a backing service is down',
};

/** Express's /v1/memories/:id is OpenAPI's /v1/memories/{id}. */
const openApiPath = (expressPath: string) => expressPath.replace(/:(\w+)/g, '{$1}');
const pathParams = (expressPath: string) => [...expressPath.matchAll(/:(\w+)/g)].map((m) => m[1]!);

/** postV1MemoriesIdRestore: unique per method and path, stable as long as the route is. */
function operationId(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/**
 * A request schema as validate() applies it: unknown members are accepted (and stripped) at every
 * level (docs/decisions/0004-lenient-input-and-aliases.md), so the document never claims `additionalProperties: false` for input.
 */
function lenientRequestSchema(schema: Schema): JsonSchema {
  const open = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(open);
    if (node === null || typeof node !== 'object') return;
    const obj = node as Record<string, unknown>;
    if (obj.additionalProperties === false) delete obj.additionalProperties;
    Object.values(obj).forEach(open);
  };
  const json = toJsonSchema(schema);
  open(json);
  return json;
}

function queryParameters(doc: RouteDoc): JsonSchema[] {
  if (!doc.query) return [];
  const schema = lenientRequestSchema(doc.query) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, s]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    schema: s,
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
  }));
}

function errorStatuses(route: AppRoute, doc: RouteDoc): Map<number, string> {
  const statuses = new Map<number, string>();
  const add = (s: ErrorStatus, why?: string) => statuses.set(s, why ?? ERROR_MEANING[s]);
  if (!route.public) add(401);
  if (route.scope) add(403, `${ERROR_MEANING[403]} (\`${route.scope}\`)`);
  if (pathParams(route.path).length) add(404);
  // Bodies and queries name agents, sessions, projects and entities by id or name.
  else if (!route.public && (doc.body || doc.query)) add(404, 'A resource the request names (agent, session, project, entity...) does not exist');
  if (doc.body) {
    add(400);
    add(413);
  }
  if (doc.body || doc.query) add(422);
  else if (!route.public) add(422, 'A NUL or unpaired surrogate in the URL path or a query parameter (`details` names it)');
  // The URL's edge (safeUrl) checks every authenticated request before its route.
  if (!route.public && !doc.body) add(400, 'Malformed percent-encoding in the URL path');
  for (const [s, why] of Object.entries(doc.errors ?? {})) add(Number(s) as ErrorStatus, why);
  add(429);
  // Any request can meet these: a missing Host, oversized headers at the socket, load shedding and the deadline (backpressure).
  const noHost = 'An HTTP/1.1 request without a Host header';
  statuses.set(400, statuses.has(400) ? `${statuses.get(400)}; or ${noHost[0]!.toLowerCase()}${noHost.slice(1)}` : noHost);
  add(431);
  add(500);
  add(503);
  return new Map([...statuses].sort(([a], [b]) => a - b));
}

function operation(route: AppRoute, doc: RouteDoc): Operation {
  const op: Operation = {
    operationId: operationId(route.method, route.path),
    summary: doc.summary,
    ...(doc.description || route.scope
      ? { description: [doc.description, route.scope ? `Requires the \`${route.scope}\` scope.` : undefined].filter(Boolean).join('\n\n') }
      : {}),
    tags: [doc.tag ?? route.path.split('/')[2] ?? 'service'],
    security: route.public ? [] : [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    ...(route.scope ? { 'x-required-scope': route.scope } : {}),
    responses: {},
  };
  const parameters = [
    ...pathParams(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...queryParameters(doc),
  ];
  if (parameters.length) op.parameters = parameters;
  if (doc.body) {
    op.requestBody = {
      required: true,
      description: 'Unknown members are ignored; `null` on an optional member means absent.',
      content: { 'application/json': { schema: lenientRequestSchema(doc.body), ...(doc.example !== undefined ? { example: doc.example } : {}) } },
    };
  }
  for (const [status, res] of Object.entries(doc.responses)) {
    op.responses[status] = {
      description: res.description,
      ...(res.headers
        ? { headers: Object.fromEntries(Object.entries(res.headers).map(([h, d]) => [h, { description: d, schema: { type: 'string' } }])) }
        : {}),
      ...(res.schema || res.contentType
        ? {
            content: {
              [res.contentType ?? 'application/json']: {
                schema: res.schema ? toJsonSchema(res.schema) : { type: 'string' },
                ...(res.example !== undefined ? { example: res.example } : {}),
              },
            },
          }
        : {}),
    };
  }
  for (const [status, why] of errorStatuses(route, doc)) {
    // A route that answers an error status with a body of its own documents it in `responses`.
    if (doc.responses[status]?.replacesError) continue;
    op.responses[String(status)] = {
      description: why,
      ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds until a retry can succeed', schema: { type: 'integer' } } } } : {}),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return op;
}

export interface BuiltDocument {
  document: OpenApiDocument;
  /** Routes of the app with no entry in the route docs ("METHOD /path"). */
  undocumented: string[];
  /** Route doc entries naming no route of the app. */
  unknown: string[];
}

/** The OpenAPI 3.1 document of `app`: routes walked from Express, described by `docs`. */
export function buildOpenApiDocument(app: Express, docs: RouteDocs): BuiltDocument {
  const routes = walkRoutes(app);
  const paths: OpenApiDocument['paths'] = {};
  const undocumented: string[] = [];
  // OpenAPI treats /a/{id} and /a/{ref} as one path: routes of one shape take the parameter names of
  // the operation their variants point at (/v1/agents/:ref is documented as /v1/agents/{id}).
  const shapeOf = (path: string) => path.replace(/:\w+/g, ':');
  const canonical = new Map<string, string>();
  for (const doc of Object.values(docs)) {
    const target = doc.variantOf?.split(' ')[1];
    if (target) canonical.set(shapeOf(target), target);
  }
  for (const route of routes) {
    const doc = docs[routeKey(route)];
    if (!doc) {
      undocumented.push(routeKey(route));
      continue;
    }
    if (doc.variantOf) continue;
    const path = canonical.get(shapeOf(route.path)) ?? route.path;
    (paths[openApiPath(path)] ??= {})[route.method] = operation({ ...route, path }, doc);
  }
  const known = new Set(routes.map(routeKey));
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: {
      title: 'Agent Memory Service',
      version: VERSION,
      summary: 'Memory for AI agents: store what they learn, find it again by semantic, keyword or hybrid search.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    tags: [...new Set(Object.values(paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags as string[])))]
      .sort()
      .map((name) => ({ name, description: `Operations on ${name}` })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key as `Authorization: Bearer <key>`' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key as `X-API-Key: <key>`' },
      },
      schemas: { Error: toJsonSchema(errorEnvelope) },
    },
  };
  return { document, undocumented, unknown: Object.keys(docs).filter((k) => !known.has(k)) };
}

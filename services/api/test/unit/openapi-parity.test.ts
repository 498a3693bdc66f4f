import express from 'express';
import Joi from 'joi';
import { buildOpenApiDocument } from '../../src/openapi/build-document';
import { describeApi, describeOnlyApp } from '../../src/openapi/describe-app';
import { toJsonSchema } from '../../src/openapi/json-schema';
import { walkRoutes } from '../../src/openapi/walk-routes';
import { requireScope } from '../../src/middleware/require-scope';
import { metadataFilter } from '../../src/routes/memories/memories.schemas';

describe('the OpenAPI document and the Express router', () => {
  const built = describeApi();

  it('documents every route of the app (a route without a <resource>.openapi.ts entry fails here)', () => {
    expect(built.undocumented).toEqual([]);
  });

  it('names no route the app does not have', () => {
    expect(built.unknown).toEqual([]);
  });

  it('gives every operation the responses of its route doc, and every authenticated one its security and 401', () => {
    const routes = walkRoutes(describeOnlyApp());
    expect(routes.length).toBeGreaterThan(60);
    for (const [path, ops] of Object.entries(built.document.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const statuses = Object.keys(op.responses);
        const own = statuses.filter((s) => /^[23]/.test(s) || s === '405');
        expect({ op: `${method} ${path}`, described: own.length > 0 }).toEqual({ op: `${method} ${path}`, described: true });
        if ((op.security as unknown[]).length) expect(statuses).toContain('401');
      }
    }
  });

  it('reads scopes off requireScope, on the route or on a router.use in front of it, and public routes off their place before requireAuth', () => {
    const ops = built.document.paths;
    expect(ops['/v1/memories/{id}']!.delete!['x-required-scope']).toBe('delete');
    expect(ops['/v1/api-keys']!.post!['x-required-scope']).toBe('admin');
    expect(ops['/v1/webhooks/{id}/deliveries/{deliveryId}/retry']!.post!['x-required-scope']).toBe('admin');
    expect(ops['/v1/health']!.get!.security).toEqual([]);
    expect(ops['/openapi.json']!.get!.security).toEqual([]);
    expect(ops['/v1/memories']!.post!.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
  });

  it('takes request bodies and query parameters from the joi schemas beside the routes', () => {
    const create = built.document.paths['/v1/memories']!.post!;
    const body = (create.requestBody as { content: Record<string, { schema: { required: string[]; properties: Record<string, unknown> } }> }).content['application/json']!.schema;
    expect(body.required).toEqual(['content']);
    expect(body.properties.importance).toEqual({ type: 'number', default: 0.5, minimum: 0, maximum: 1 });
    const list = built.document.paths['/v1/memories']!.get!;
    expect(list.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'limit', in: 'query', schema: expect.objectContaining({ maximum: 100 }) })]));
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['200', '201', '400', '401', '403', '413', '422', '429', '500']));
  });

  it('walks routers mounted under a prefix and route guards on prefixed routers', () => {
    const app = express();
    const inner = express.Router();
    inner.use('/things', requireScope('admin'));
    inner.get('/things/:id', (_req, res) => res.end());
    app.use('/v9', inner);
    expect(walkRoutes(app)).toEqual([{ method: 'get', path: '/v9/things/:id', scope: 'admin', public: true }]);
    const { undocumented } = buildOpenApiDocument(app, {});
    expect(undocumented).toEqual(['GET /v9/things/:id']);
  });
});

describe('joi to JSON Schema', () => {
  it('lets objects keyed by a joi schema (metadata_filter) take any key instead of none', () => {
    expect(toJsonSchema(metadataFilter)).toMatchObject({ type: 'object', additionalProperties: true });
    expect(toJsonSchema(Joi.object({ a: Joi.array().items(Joi.object().pattern(Joi.string(), Joi.any())) }))).toMatchObject({
      properties: { a: { items: { additionalProperties: true } } },
    });
  });
});

import express from 'express';
import supertest from 'supertest';

// The OpenAPI response check every test app runs (test/openapi-response-check.js), on a small
// document: it passes what the document allows and reports each kind of mismatch.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { openApiResponseCheck, VIOLATIONS } = require('./openapi-response-check') as {
  openApiResponseCheck(routes: string, documentJson: () => string): express.RequestHandler[];
  VIOLATIONS: string;
};

const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const item = { type: 'object', required: ['id', 'at'], properties: { id: { type: 'string', format: 'uuid' }, at: { type: 'string', format: 'date-time' } }, additionalProperties: false };
const document = {
  openapi: '3.1.0',
  servers: [{ url: '/' }],
  paths: {
    '/items/{id}': {
      get: { responses: { '200': json(item), '4XX': json({ $ref: '#/components/schemas/Error' }) } },
      delete: { responses: { '204': { description: 'gone' }, default: json({ $ref: '#/components/schemas/Error' }) } },
    },
    '/items/search': { get: { responses: { '200': json({ type: 'array', items: item }) } } },
  },
  components: { schemas: { Error: { type: 'object', required: ['code'], properties: { code: { type: 'integer' } } } } },
};

const ID = '00000000-0000-4000-8000-000000000000';

describe('the OpenAPI response check of the test apps', () => {
  let answer: (req: express.Request, res: express.Response) => void;
  let violations: string[];
  const app = express();
  app.use((req, _res, next) => {
    (req as unknown as Record<string, unknown>)[VIOLATIONS] = violations;
    next();
  });
  // A routes key of this file's own, so the worker's check for the document is this one.
  app.use(openApiResponseCheck(JSON.stringify({ test: 'openapi-response-check' }), () => JSON.stringify(document)));
  app.use((req, res) => answer(req, res));

  async function findings(method: 'get' | 'delete', url: string, send: (res: express.Response) => void): Promise<string[]> {
    violations = [];
    answer = (_req, res) => send(res);
    await supertest(app)[method](url);
    return violations;
  }

  it('passes a body its status allows, a Date read as its ISO string, a referenced schema and a range status', async () => {
    expect(await findings('get', `/items/${ID}`, (res) => res.json({ id: ID, at: new Date() }))).toEqual([]);
    expect(await findings('get', `/items/${ID}/`, (res) => res.json({ id: ID, at: new Date().toISOString() }))).toEqual([]);
    expect(await findings('get', `/items/${ID}`, (res) => res.status(404).json({ code: 404 }))).toEqual([]);
    expect(await findings('delete', `/items/${ID}`, (res) => res.status(409).json({ code: 409 }))).toEqual([]);
    expect(await findings('delete', `/items/${ID}`, (res) => res.status(204).end())).toEqual([]);
  });

  it('reports a body that does not match, a status not listed and a body where none is documented', async () => {
    expect(await findings('get', `/items/${ID}`, (res) => res.json({ id: 'nope', at: 'x' }))).toEqual([expect.stringMatching(/must match format "uuid"/)]);
    expect(await findings('get', `/items/${ID}`, (res) => res.json({ id: ID }))).toEqual([expect.stringMatching(/must have required property 'at'/)]);
    expect(await findings('get', `/items/${ID}`, (res) => res.json({ id: ID, at: new Date(), extra: 1 }))).toEqual([expect.stringMatching(/must NOT have additional properties/)]);
    expect(await findings('get', `/items/${ID}`, (res) => res.status(404).json({ code: 'x' }))).toEqual([expect.stringMatching(/code must be integer/)]);
    expect(await findings('get', `/items/${ID}`, (res) => res.status(302).json({}))).toEqual([expect.stringMatching(/no schema defined for status code '302'/)]);
    expect(await findings('delete', `/items/${ID}`, (res) => res.status(204).json({}))).toEqual([expect.stringMatching(/response should NOT have a body/)]);
  });

  it('takes a static path before a parameter, and leaves 5xx answers and undocumented operations alone', async () => {
    expect(await findings('get', '/items/search', (res) => res.json([{ id: ID, at: new Date() }]))).toEqual([]);
    expect(await findings('get', '/items/search', (res) => res.json({ id: ID, at: new Date() }))).toEqual([expect.stringMatching(/must be array/)]);
    expect(await findings('get', `/items/${ID}`, (res) => res.status(503).json({ anything: true }))).toEqual([]);
    expect(await findings('get', '/elsewhere', (res) => res.json({ anything: true }))).toEqual([]);
    expect(await findings('delete', '/items/search', (res) => res.json({ anything: true }))).toEqual([]);
  });
});

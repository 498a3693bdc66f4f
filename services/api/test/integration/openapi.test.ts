import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MEMORY_CHANGES } from '@ams/memories';
import { bearer, createAccount, createTestApp, TestApp } from '@ams/testing';
import { describeApi } from '../../src/openapi/describe-app';
import { DOCS_CSP } from '../../src/openapi/openapi.router';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('the API describes itself', () => {
  it('serves the OpenAPI 3.1 document at GET /openapi.json without a key', async () => {
    const res = await t.request().get('/openapi.json').expect(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body).toEqual(JSON.parse(JSON.stringify(describeApi().document)));
    expect(res.body.components.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      apiKeyHeader: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    });
  });

  it('serves the docs page and its Swagger UI assets from this server (no CDN)', async () => {
    const page = await t.request().get('/docs').expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBe(3);
    for (const asset of assets) {
      expect(asset.startsWith('/docs/assets/')).toBe(true);
      const res = await t.request().get(asset).expect(200);
      expect(res.text.length).toBeGreaterThan(10);
    }
    expect((await t.request().get('/docs/assets/init.js')).text).toContain("url: '/openapi.json'");
  });

  it('serves /docs and its assets with a policy of their own, unframeable, and Swagger UI forgets an entered key', async () => {
    for (const url of ['/docs', '/docs/assets/init.js', '/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css']) {
      const res = await t.request().get(url).expect(200);
      expect(res.headers['content-security-policy']).toBe(DOCS_CSP);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
    expect(DOCS_CSP).toContain("default-src 'none'");
    expect(DOCS_CSP).toContain("script-src 'self'");
    expect(DOCS_CSP).toContain("frame-ancestors 'none'");
    expect(DOCS_CSP).not.toMatch(/unsafe|\*|https?:/);
    // Nothing inline for the policy to allow: the page loads only its three files.
    expect((await t.request().get('/docs')).text).not.toMatch(/<script>|<style|style=/);
    const init = (await t.request().get('/docs/assets/init.js')).text;
    expect(init).toContain('persistAuthorization: false');
    expect(init).toContain('validatorUrl: null');
  });

  it('answers GET and DELETE /mcp with 405: the MCP endpoint is stateless, without a server stream or sessions', async () => {
    const acct = await createAccount(t.ctx);
    await t.request().get('/mcp').set(bearer(acct.key)).set('Accept', 'text/event-stream').expect(405);
    await t.request().delete('/mcp').set(bearer(acct.key)).expect(405);
  });
});

describe('one closed list of history change kinds', () => {
  it('is the same in the code, the OpenAPI enum and docs/api.md', async () => {
    const doc = (await t.request().get('/openapi.json').expect(200)).body;
    const version = doc.paths['/v1/memories/{id}/history'].get.responses['200'].content['application/json'].schema.properties.data.items;
    const resolved = version.$ref ? doc.components.schemas[version.$ref.split('/').pop()] : version;
    expect(resolved.properties.change.enum).toEqual([...MEMORY_CHANGES]);
    const apiMd = readFileSync(path.join(__dirname, '../../../../docs/api.md'), 'utf8');
    const listed = apiMd.slice(apiMd.indexOf('- `change`, one of:'), apiMd.indexOf('- `changed_fields`'));
    expect([...listed.matchAll(/`([a-z_-]+)`/g)].map((m) => m[1]).filter((w) => w !== 'change')).toEqual([...MEMORY_CHANGES]);
  });
});

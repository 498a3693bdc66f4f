import http from 'node:http';
import express from 'express';
import fc from 'fast-check';
import type { Schema } from 'joi';
import supertest from 'supertest';
import { answerClientErrors } from '../../src/lib/client-errors';
import { listRoutes, RouteEntry } from '../../src/lib/route-table';
import { RECORD_SCHEMAS } from '../../src/routes/import/import-records.schemas';
import { schemaCapture } from '../../src/validation/schema-capture';
import { Description, pathParamArbitrary, requestArbitrary } from '@ams/testing';
import { accountFingerprint, bearer, createAccount, createTestApp, TestAccount, TestApp } from '@ams/testing';

/**
 * Property-based fuzzing of every route. Routes come from the app's own router
 * stack and each route's schemas from validate() itself (schema-capture), so routes added later are
 * fuzzed without touching this file. Bodies, query strings and path parameters are generated from
 * those joi schemas, then mutated (wrong types, NUL, unpaired surrogates, huge and deep values,
 * prototype keys). Every answer must be < 500; every error must be the envelope; a rejected request
 * must leave the account's stored data as it was.
 * FUZZ_RUNS (per route, default 12) and FUZZ_SEED make it longer or replay a failure.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? 1313);

// Tables whose rows a request might change; api_keys (last use) and search_events change on reads.

describe('fuzzing every route from its own schema', () => {
  let t: TestApp;
  let acct: TestAccount;
  let server: http.Server;
  const schemas = new Map<string, { body?: Description; query?: Description }>();
  let routes: RouteEntry[] = [];

  const routeKey = (r: RouteEntry) => `${r.method} ${r.path}`;
  const fingerprint = () => accountFingerprint(t.ctx.db.knex, acct.accountId);

  const send = (method: string, url: string, body?: string) => {
    const req = supertest(server)[method.toLowerCase() as 'get'](url).set(bearer(acct.key));
    return body === undefined ? req : req.set('Content-Type', 'application/json').send(body);
  };

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
    let current: string | undefined;
    // Every request runs inside a capture that files validate()'s schemas under the matched route.
    const outer = express();
    outer.use((req, _res, next) => {
      const key = current;
      schemaCapture.run((schema: Schema, input: unknown) => {
        if (!key) return;
        const entry = schemas.get(key) ?? {};
        entry[input === req.body && input !== undefined ? 'body' : 'query'] ??= schema.describe() as Description;
        schemas.set(key, entry);
      }, next);
    });
    outer.use(t.app);
    // Served as server.ts serves it, so what Node's parser refuses (431 on a huge URL) gets the envelope too.
    server = http.createServer(outer);
    answerClientErrors(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // /mcp speaks JSON-RPC (its errors are JSON-RPC errors, not the REST envelope): mcp-fuzz.test.ts fuzzes it.
    routes = listRoutes(t.api).filter((r) => r.path !== '/mcp');
    // Discovery: one plain request per route records the schemas it validates with.
    for (const r of routes) {
      current = routeKey(r);
      const url = r.path.replace(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000000');
      await send(r.method, url, ['POST', 'PATCH', 'PUT'].includes(r.method) ? '{}' : undefined);
    }
    current = undefined;
    // One request per route (70-odd), each route's first response compiling its OpenAPI schema in the conformance wrapper.
  }, 120_000);
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await t.close();
  });

  it('finds the routes and their schemas', () => {
    expect(routes.length).toBeGreaterThan(50);
    expect(schemas.get('POST /v1/memories')?.body?.keys).toHaveProperty('content');
    expect(schemas.get('GET /v1/memories')?.query?.keys).toHaveProperty('limit');
  });

  it('never answers 500, always with the envelope, and a rejected request changes nothing', async () => {
    const failures: string[] = [];
    // The account's fingerprint once a rejected request left it as it was: the next request's
    // "before", instead of reading every table again (an accepted request may change data, so it clears it).
    let unchanged: string | undefined;
    for (const r of routes) {
      const s = schemas.get(routeKey(r)) ?? {};
      const params = (r.path.match(/:[A-Za-z]+/g) ?? []).length;
      const hasBody = ['POST', 'PATCH', 'PUT'].includes(r.method);
      await fc.assert(
        fc.asyncProperty(
          fc.array(pathParamArbitrary, { minLength: params, maxLength: params }),
          requestArbitrary(s.query),
          hasBody ? requestArbitrary(s.body) : fc.constant(undefined),
          fc.boolean(),
          async (ids, query, body, protoKeys) => {
            let i = 0;
            const path = r.path.replace(/:[A-Za-z]+/g, () => ids[i++]!);
            const qs = new URLSearchParams();
            for (const [k, v] of Object.entries(query)) qs.append(k, typeof v === 'string' ? v : JSON.stringify(v));
            let raw = body === undefined ? undefined : JSON.stringify(body);
            // Prototype keys, as JSON.parse keeps them: own properties named __proto__ and constructor.
            if (raw && protoKeys) raw = raw.replace(/^\{/, '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}' + (raw === '{}' ? '' : ','));
            const before = unchanged ?? (await fingerprint());
            unchanged = undefined;
            const res = await send(r.method, `${path}${qs.size ? `?${qs}` : ''}`, raw);
            // An accepted import runs on after its answer: settled before the next request's fingerprint.
            if (res.status === 202 && res.body?.object === 'import_job') await t.ctx.imports!.settled(res.body.id);
            const where = `${r.method} ${path} ${res.status}`;
            if (res.status >= 500) failures.push(`${where}: ${res.text.slice(0, 200)} after ${(raw ?? '').slice(0, 300)} ?${qs.toString().slice(0, 200)}`);
            if (res.status >= 400) {
              const b = res.body as Record<string, unknown>;
              if (b.code !== res.status || typeof b.type !== 'string' || typeof b.message !== 'string' || b.request_id !== res.headers['x-request-id']) {
                failures.push(`${where}: not the envelope: ${res.text.slice(0, 200)}`);
              }
              if ((await fingerprint()) === before) unchanged = before;
              else failures.push(`${where}: a rejected request changed stored data`);
            }
            return failures.length === 0;
          },
        ),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      ).catch(() => undefined); // the failures list says what went wrong, for every route at once
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(failures).toEqual([]);
  }, Math.max(240_000, RUNS * 20_000)); // ~30-60 s at the default runs; FUZZ_RUNS scales it

  it('import lines: each settles (stored, skipped or failed with its line and field, never SQL), and the job counts what is stored', async () => {
    const types = Object.keys(RECORD_SCHEMAS).filter((t) => t !== 'header') as Array<keyof typeof RECORD_SCHEMAS>;
    const record = fc.constantFrom(...types).chain((type) => requestArbitrary(RECORD_SCHEMAS[type].describe() as Description).map((r) => ({ ...r, type })));
    const line = fc.oneof(
      { weight: 4, arbitrary: record.map((r) => JSON.stringify(r)) },
      { weight: 1, arbitrary: fc.constantFrom('', '{', '[]', 'null', '"x"', '{"type":"memory"}', '{"type":"__proto__"}', '\u0000', 'x'.repeat(5000)) },
    );
    const failures: string[] = [];
    const memories = async () => Number((await t.ctx.db.knex('memories').where({ account_id: acct.accountId }).count({ n: '*' }).first())!.n);
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 12 }), async (lines) => {
        const before = await memories();
        const res = await send('POST', '/v1/import').set('Content-Type', 'application/x-ndjson').send(lines.join('\n') + '\n');
        if (res.status !== 202) {
          failures.push(`POST /v1/import ${res.status}: ${res.text.slice(0, 200)}`);
          return false;
        }
        await t.ctx.imports!.settled(res.body.id);
        const job = (await send('GET', `/v1/import/jobs/${res.body.id}`)).body;
        const where = `import of ${JSON.stringify(lines).slice(0, 300)}`;
        if (job.status !== 'completed') failures.push(`${where}: job ${job.status}: ${job.failure}`);
        const { read, stored, skipped, failed } = job.records;
        if (read !== stored + skipped + failed || read !== lines.filter((l) => l.trim() !== '').length) failures.push(`${where}: counts ${JSON.stringify(job.records)}`);
        for (const e of job.errors as Array<{ line: number; message: string }>) {
          if (!(e.line >= 1 && e.line <= lines.length) || /insert into|select |update "|\$\d/i.test(e.message)) failures.push(`${where}: error ${JSON.stringify(e)}`);
        }
        const created = (job.counts.memory?.created ?? 0) as number;
        if ((await memories()) !== before + created) failures.push(`${where}: ${created} memories counted, ${(await memories()) - before} stored`);
        return failures.length === 0;
      }),
      { numRuns: RUNS * 3, seed: SEED, endOnFailure: true },
    ).catch(() => undefined);
    expect(failures).toEqual([]);
  }, 240_000);
});

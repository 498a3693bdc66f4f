import fc from 'fast-check';
import { hostileValue, requestArbitrary, type Description } from '@ams/testing';
import { accountFingerprint, bearer, createAccount, createTestApp, TestAccount, TestApp } from '@ams/testing';
import { TOOLS } from '../../src/mcp/tools';

/**
 * Property-based fuzzing of every MCP tool's arguments, as fuzz.test.ts does for the REST routes:
 * arguments from the tool's own joi schema, mutated (wrong types, NUL, unpaired surrogates, huge
 * and deep values, prototype keys), or not an object at all (null, arrays, strings). Every answer
 * must be a JSON-RPC result or an invalid-request/params error (never -32603, never a 5xx; text the
 * HTTP layer refuses gets the API's envelope), and a rejected call must leave the account's stored
 * data as it was.
 * FUZZ_RUNS (per tool, default 12) and FUZZ_SEED make it longer or replay a failure.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? 2727);
const ACCEPTED_ERRORS = [-32600, -32602];

describe('fuzzing every MCP tool from its own schema', () => {
  let t: TestApp;
  let acct: TestAccount;
  let rpcId = 0;

  const fingerprint = () => accountFingerprint(t.ctx.db.knex, acct.accountId);

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('answers every call with a result or an invalid-params error, and a rejected call changes nothing', async () => {
    const failures: string[] = [];
    for (const tool of TOOLS) {
      const args = fc.oneof(
        { weight: 4, arbitrary: requestArbitrary(tool.input.describe() as Description) },
        { weight: 1, arbitrary: hostileValue },
        { weight: 1, arbitrary: fc.constantFrom<unknown>(null, [], 'memory', 42, [{ content: 'x' }]) },
      );
      await fc.assert(
        fc.asyncProperty(args, fc.boolean(), async (toolArgs, protoKeys) => {
          let rawArgs = JSON.stringify(toolArgs);
          // Own properties named __proto__ and constructor, as JSON.parse keeps them.
          if (protoKeys && rawArgs.startsWith('{')) rawArgs = rawArgs.replace(/^\{/, '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}' + (rawArgs === '{}' ? '' : ','));
          const raw = `{"jsonrpc":"2.0","id":${++rpcId},"method":"tools/call","params":{"name":${JSON.stringify(tool.name)},"arguments":${rawArgs}}}`;
          const before = await fingerprint();
          const res = await t
            .request()
            .post('/mcp')
            .set(bearer(acct.key))
            .set('Accept', 'application/json, text/event-stream')
            .set('Content-Type', 'application/json')
            .send(raw);
          const where = `${tool.name} ${res.status} after ${raw.slice(0, 300)}`;
          if (res.status >= 500) failures.push(`${where}: ${res.text.slice(0, 200)}`);
          // What the HTTP layer refuses before JSON-RPC (NUL, unpaired surrogates, absurd depth) gets the API's envelope.
          if (res.status >= 400) {
            const b = res.body as Record<string, unknown>;
            if (b.code !== res.status || typeof b.type !== 'string' || typeof b.message !== 'string') failures.push(`${where}: not the envelope: ${res.text.slice(0, 200)}`);
          }
          const body = res.body as { result?: { isError?: boolean }; error?: { code: number; message: string } };
          if (body.error && !ACCEPTED_ERRORS.includes(body.error.code)) failures.push(`${where}: JSON-RPC error ${body.error.code} ${body.error.message.slice(0, 200)}`);
          if (res.status < 400 && !body.error && !body.result) failures.push(`${where}: neither a result nor an error: ${res.text.slice(0, 200)}`);
          const rejected = res.status >= 400 || body.error !== undefined || body.result?.isError === true;
          if (rejected && (await fingerprint()) !== before) failures.push(`${where}: a rejected call changed stored data`);
          return failures.length === 0;
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      ).catch(() => undefined); // the failures list says what went wrong, for every tool at once
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(failures).toEqual([]);
  }, Math.max(180_000, RUNS * 15_000));
});

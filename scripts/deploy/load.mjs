// The deploy test's steady mixed load: `clients` loops, each a v1 create, a v2 create and a search
// (modes in turn), spread over the APIs as a load balancer would (a request no API answered is
// sent to the next one; one that got an answer is not repeated). Runs until <stop file> exists,
// then writes <out.json>: acknowledged ids (201 v1, 202 v2), answers by status, every 5xx with
// whether it carried Retry-After, and the requests no API answered.
// Usage: node scripts/deploy/load.mjs <key> <stop file> <out.json> <clients> <api url>...
import fs from 'node:fs';
import { request } from './http.mjs';

const [key, stopFile, out, clientsArg, ...apis] = process.argv.slice(2);
if (!apis.length) throw new Error('usage: load.mjs <key> <stop file> <out.json> <clients> <api url>...');

const result = { v1: [], v2: [], statuses: {}, fivexx: [], unanswered: 0, requests: 0, startedAt: Date.now(), endedAt: 0 };
let turn = 0;
const MODES = ['semantic', 'keyword', 'hybrid'];
const WORDS = 'amber basalt cedar delta ember fjord granite harbor indigo juniper kestrel lantern meadow nectar'.split(' ');

async function send(method, path, body) {
  for (let attempt = 0; attempt < apis.length * 20; attempt += 1) {
    const base = apis[turn++ % apis.length];
    const res = await request(method, `${base}${path}`, { key, body, timeoutMs: 30_000 });
    result.requests += 1;
    if (res.status === 0) {
      result.unanswered += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    result.statuses[res.status] = (result.statuses[res.status] ?? 0) + 1;
    if (res.status === 429) {
      // A client's back-off; the load runs under the stack's rate limit, so this is rare.
      await new Promise((resolve) => setTimeout(resolve, 1000 * Number(res.headers.get('retry-after') ?? 1)));
      continue;
    }
    if (res.status >= 500) {
      result.fivexx.push({ status: res.status, path, api: base, retryAfter: res.headers.get('retry-after'), code: res.body?.error?.code });
    }
    return res;
  }
  return null;
}

async function client(n) {
  for (let i = 0; !fs.existsSync(stopFile); i += 1) {
    const words = `${WORDS[(n + i) % WORDS.length]} ${WORDS[(n * 3 + i * 7) % WORDS.length]}`;
    const v1 = await send('POST', '/v1/memories', { content: `Load note ${n}-${i}: the ${words} survey, v1`, agent_id: `load-${n}` });
    if (v1?.status === 201) result.v1.push(v1.body.id);
    const v2 = await send('POST', '/v2/memories', { content: `Load note ${n}-${i}: the ${words} survey, v2`, agent_id: `load-${n}` });
    if (v2?.status === 202) result.v2.push(v2.body.id);
    await send('POST', '/v1/memories/search', { query: `${words} survey`, mode: MODES[i % MODES.length], limit: 5 });
  }
}

await Promise.all(Array.from({ length: Number(clientsArg) }, (_, n) => client(n)));
result.endedAt = Date.now();
fs.writeFileSync(out, JSON.stringify(result));

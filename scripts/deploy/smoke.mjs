// The deploy test's smoke test, as a user checks a fresh stack: health on each API, an account, a
// webhook to the receiver container, a v1 and a v2 memory (the second embedded by a worker), the
// three search modes on the other API, both deliveries at the receiver, the API's /metrics with
// the operator's key, the console's page. Prints the account's key on its last line (the CLI
// check uses it). Usage: node scripts/deploy/smoke.mjs <api url> <api-2 url> <receiver url> <operator key>
import { check, expectStatus, poll, request } from './http.mjs';

const [api, api2, receiver, operatorKey] = process.argv.slice(2);
if (!operatorKey) throw new Error('usage: smoke.mjs <api url> <api-2 url> <receiver url> <operator key>');

for (const base of [api, api2]) {
  const health = await expectStatus(200, 'GET', `${base}/v1/health`);
  check(health.body.status === 'healthy', `${base}/v1/health status healthy`, health.body);
  check(health.body.embedding?.fallback !== true, `${base} embeds with the baked-in model (no lexical fallback)`, health.body);
}

const email = `deploy-${Date.now()}@example.com`;
const account = await expectStatus(201, 'POST', `${api}/v1/auth/register`, { body: { email, password: 'deploy-test-password' } });
const key = account.body.api_key;
check(/^mem_/.test(key ?? ''), 'register returns a key', account.body);

const hook = await expectStatus(201, 'POST', `${api}/v1/webhooks`, { key, body: { url: 'https://receiver:8443/hook', secret: 'deploy-test-secret' } });

const v1 = await expectStatus(201, 'POST', `${api}/v1/memories`, {
  key,
  body: { content: 'The deploy test keeps its harbour lighthouse logbook in the blue cabinet', agent_id: 'deploy-agent' },
});
const v2 = await expectStatus(202, 'POST', `${api2}/v2/memories`, {
  key,
  body: { content: 'Orchard pruning happens every February before the sap rises', agent_id: 'deploy-agent' },
});
const status = await poll(`v2 memory ${v2.body.id} ready`, 60_000, async () => {
  const res = await request('GET', `${api}/v2/memories/${v2.body.id}/status`, { key });
  return res.body?.status === 'ready' ? res.body : null;
});
check(status.job_id !== null || v2.body.job_id !== null, 'the v2 memory went through the queue', { v2: v2.body, status });

for (const [mode, query, expected] of [
  ['semantic', 'lighthouse logbook in the harbour', v1.body.id],
  ['keyword', 'orchard pruning', v2.body.id],
  ['hybrid', 'blue cabinet logbook', v1.body.id],
]) {
  const res = await expectStatus(200, 'POST', `${api2}/v1/memories/search`, { key, body: { query, mode, limit: 5 } });
  const ids = (res.body.results ?? res.body.data ?? []).map((r) => r.id ?? r.memory?.id);
  check(ids.includes(expected), `${mode} search finds its memory`, res.body);
}

const deliveries = await poll('both memories delivered to the receiver', 60_000, async () => {
  const list = (await request('GET', `${receiver}/deliveries`)).body ?? [];
  const types = new Set(list.map((d) => `${d.type}:${d.memory_id}`));
  const wanted = [`memory.created:${v1.body.id}`, `memory.created:${v2.body.id}`, `embedding.completed:${v2.body.id}`];
  return wanted.every((w) => types.has(w)) ? list : null;
});
const hookDeliveries = await expectStatus(200, 'GET', `${api}/v1/webhooks/${hook.body.id}/deliveries`, { key });

const metrics = await request('GET', `${api2}/metrics`, { key: operatorKey, text: true });
check(metrics.status === 200 && metrics.text.includes('ams_http_requests_total'), "the API's /metrics with the operator's key", metrics.status);
check((await request('GET', `${api2}/metrics`, { key })).status === 403, "a registered account's admin key gets 403 on /metrics");

const page = await request('GET', `${api}/`, { text: true });
check(page.status === 200 && /<html/i.test(page.text) && /<script[^>]+src=/i.test(page.text), "the console's page", page.status);
const asset = page.text.match(/<script[^>]+src="([^"]+)"/i)?.[1];
const script = await request('GET', new URL(asset, `${api}/`).toString(), { text: true });
check(script.status === 200 && script.text.length > 1000, "the console's script", script.status);

console.log(
  `smoke: health x2, register, webhook, v1 + v2 create, 3 search modes, ${deliveries.length} deliveries at the receiver ` +
    `(${(hookDeliveries.body.data ?? hookDeliveries.body.deliveries ?? []).length} listed), /metrics, console page`,
);
console.log(key);

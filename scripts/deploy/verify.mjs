// After a load with restarts (scripts/test-deploy.sh): every acknowledged write is stored and
// searchable (status ready), embedded exactly once (one embedding.completed event for each v2
// memory, none for v1), every webhook event delivered (succeeded in the outbox, seen by the
// receiver at least once), and no answered 5xx but 503 with Retry-After. Prints the counts.
// Usage: node scripts/deploy/verify.mjs <account id> <receiver url> <load.json> <postgres container> <label>
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { check, poll, request } from './http.mjs';

const [accountId, receiver, loadFile, postgres, label] = process.argv.slice(2);
if (!label) throw new Error('usage: verify.mjs <account id> <receiver url> <load.json> <postgres container> <label>');
const load = JSON.parse(fs.readFileSync(loadFile, 'utf8'));
const acked = [...load.v1, ...load.v2];

const sql = (query) =>
  execFileSync('podman', ['exec', postgres, 'psql', '-U', 'ams', '-d', 'ams', '-tAF', '\t', '-c', query], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'));

// Every acknowledged memory ready: the database's view, polled while the workers drain.
const notReady = () => {
  const rows = sql(`SELECT id, embedding_status, embedding IS NOT NULL, deleted_at IS NULL FROM memories WHERE account_id = '${accountId}'`);
  const byId = new Map(rows.map(([id, status, vector, live]) => [id, { status, vector: vector === 't', live: live === 't' }]));
  return acked.filter((id) => !(byId.get(id)?.status === 'ready' && byId.get(id).vector && byId.get(id).live));
};
let pending = [];
await poll(`${label}: every acknowledged memory stored and embedded`, 180_000, async () => {
  pending = notReady();
  return pending.length === 0;
}).catch((err) => {
  throw new Error(`${err.message}; ${pending.length} not: ${JSON.stringify(sql(`SELECT id, embedding_status, embedding_attempts, embedding_error FROM memories WHERE id IN ('${pending.slice(0, 5).join("','")}')`))}`);
});

// The outbox drained: nothing pending or being delivered for this account.
await poll(`${label}: the webhook outbox drained`, 240_000, async () => {
  const [[open]] = sql(`SELECT count(*) FROM webhook_deliveries WHERE account_id = '${accountId}' AND status IN ('pending', 'delivering')`);
  return open === '0';
});
const events = sql(`SELECT event_id, event_type, payload->'data'->>'memory_id', status FROM webhook_deliveries WHERE account_id = '${accountId}'`);
const failed = events.filter(([, , , status]) => status !== 'succeeded');
check(failed.length === 0, `${label}: every delivery succeeded`, failed.slice(0, 5));

const completions = new Map();
for (const [, type, memoryId] of events) if (type === 'embedding.completed') completions.set(memoryId, (completions.get(memoryId) ?? 0) + 1);
const v2Once = load.v2.filter((id) => completions.get(id) === 1).length;
check(v2Once === load.v2.length, `${label}: each v2 memory embedded exactly once (one embedding.completed)`, {
  v2: load.v2.length,
  once: v2Once,
  other: load.v2.filter((id) => completions.get(id) !== 1).slice(0, 5).map((id) => [id, completions.get(id) ?? 0]),
});
check(load.v1.every((id) => !completions.has(id)), `${label}: no v1 memory embedded again by a worker`);
const created = new Set(events.filter(([, type]) => type === 'memory.created').map(([, , id]) => id));
check(acked.every((id) => created.has(id)), `${label}: a memory.created event for every acknowledged write`);

const seen = new Map();
for (const d of (await request('GET', `${receiver}/deliveries`, { timeoutMs: 60_000 })).body) seen.set(d.id, (seen.get(d.id) ?? 0) + 1);
const missing = events.filter(([id]) => !seen.has(id));
check(missing.length === 0, `${label}: the receiver got every event`, missing.slice(0, 5));
const repeats = events.filter(([id]) => seen.get(id) > 1).length;

const bad5xx = load.fivexx.filter((r) => !(r.status === 503 && r.retryAfter));
check(bad5xx.length === 0, `${label}: no 5xx but 503 with Retry-After`, bad5xx.slice(0, 5));
const seconds = ((load.endedAt - load.startedAt) / 1000).toFixed(0);
console.log(
  `${label}: ${load.requests} requests in ${seconds} s (${JSON.stringify(load.statuses)}), ${load.unanswered} unanswered (sent on to the other API), ` +
    `${load.fivexx.length} answered 503 with Retry-After; ${load.v1.length} v1 + ${load.v2.length} v2 writes acknowledged, all stored and embedded, ` +
    `each v2 once; ${events.length} webhook events, all delivered (${repeats} more than once)`,
);

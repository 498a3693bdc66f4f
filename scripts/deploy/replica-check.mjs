// The replica profile's check, after the smoke test: each API lists the standby as `up` in
// /v1/health, and a key's reads (its writes replayed) are served by it, as /metrics'
// ams_db_reads_routed_total{route="replica"} counts them; the memory the key wrote is there.
// Usage: node scripts/deploy/replica-check.mjs <api url> <api-2 url> <operator key> <user key>
import { check, expectStatus, poll, request } from './http.mjs';

const [api, api2, operatorKey, key] = process.argv.slice(2);
if (!key) throw new Error('usage: replica-check.mjs <api url> <api-2 url> <operator key> <user key>');

for (const base of [api, api2]) {
  await poll(`${base}/v1/health lists the replica as up`, 60_000, async () => {
    const replicas = (await request('GET', `${base}/v1/health`)).body?.replicas ?? [];
    return replicas.length === 1 && replicas[0].state === 'up';
  });
}

const routed = async (base) => {
  const text = (await request('GET', `${base}/metrics`, { key: operatorKey, text: true })).text ?? '';
  const line = text.split('\n').find((l) => l.startsWith('ams_db_reads_routed_total{') && l.includes('route="replica"'));
  return line ? Number(line.split(' ').pop()) : 0;
};

for (const base of [api, api2]) {
  const before = await routed(base);
  const served = await poll(`${base}: a read served by the replica`, 60_000, async () => {
    const list = await expectStatus(200, 'GET', `${base}/v1/memories?limit=5`, { key });
    return (await routed(base)) > before ? list : null;
  });
  check((served.body.data ?? served.body.memories ?? []).length >= 1, `${base}: the replica's answer holds the key's memories`, served.body);
}
console.log('replica: up in both APIs\' health; reads served by the replica on both, with the memories written through the primary');

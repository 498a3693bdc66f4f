// The compose file scripts/test-deploy.sh runs: docker-compose.yml as users run it, with what a
// machine without a registry or a second host needs on top:
// - the three services use the image the script built (no `build:` of their own); the citus
//   profile's nodes the stand-in Citus image (--citus-image), infra/citus.Dockerfile not built;
// - a second API (api-2) and a second embedding worker, copies of the first ones;
// - the APIs published on loopback ports only, with a per-key rate limit the test's load stays under;
// - a webhook receiver (HTTPS, a certificate the script makes, trusted through WEBHOOK_CA_FILE). The
//   address policy stays on: deliveries must reach a public address, so the script gives the
//   stack's network a public range (its bridge, on this machine only);
// - the services of --profile=<name> (replica, citus) kept, the other profiles' left out; with
//   citus, no plain PostgreSQL (the services use the coordinator: AMS_DATABASE_HOST); without
//   replica, no DATABASE_REPLICA_URLS;
// - host paths made absolute (the file is written elsewhere);
// - written as JSON (YAML too), whose quoted strings stay strings for YAML 1.1 readers (podman-compose).
// Usage: node scripts/deploy/compose-file.mjs <out.yml> <image> <api port> <api-2 port> <receiver port> <receiver dir>
//   [webhook secret key] [--profile=replica|citus] [--citus-image=<image>]
// (the key: another stack's, for a database restored from it)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const args = process.argv.slice(2);
const option = (name) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const [out, image, apiPort, api2Port, receiverPort, receiverDir, secretKey] = args.filter((a) => !a.startsWith('--'));
if (!receiverDir) throw new Error('usage: compose-file.mjs <out.yml> <image> <api port> <api-2 port> <receiver port> <receiver dir> [key] [--profile=…]');
const profile = option('profile');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const compose = YAML.parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true });

const dropped = new Set();
for (const [name, service] of Object.entries(compose.services)) {
  if ((service.profiles && !service.profiles.includes(profile)) || (profile === 'citus' && name === 'postgres')) {
    delete compose.services[name];
    dropped.add(name);
  }
}
for (const service of Object.values(compose.services)) {
  delete service.profiles;
  if (service.depends_on) for (const dep of Object.keys(service.depends_on)) if (dropped.has(dep)) delete service.depends_on[dep];
  if (service.build) {
    service.image = service.build.dockerfile === 'citus.Dockerfile' ? option('citus-image') : image;
    delete service.build;
  }
  if (service.volumes) service.volumes = service.volumes.map((v) => (v.startsWith('./') ? path.join(root, v) : v));
}
for (const name of Object.keys(compose.volumes)) if (name.startsWith('citus') && profile !== 'citus') delete compose.volumes[name];

const { api, 'embedding-worker': worker, 'webhook-dispatcher': dispatcher } = compose.services;
// Read replicas with the replica profile only: an earlier image (the upgrade profile) may not take a blank value for unset.
if (profile !== 'replica') delete api.environment.DATABASE_REPLICA_URLS;
const receiverEnv = { WEBHOOK_CA_FILE: '/receiver/cert.pem' };
const receiverMount = `${receiverDir}:/receiver:ro`;
api.ports = [`127.0.0.1:${apiPort}:8080`];
api.environment.RATE_LIMIT_PER_MINUTE = '100000';
if (secretKey) for (const service of [api, dispatcher]) service.environment.WEBHOOK_SECRET_KEY = secretKey;
Object.assign(api.environment, receiverEnv);
api.volumes = [...api.volumes, receiverMount];
compose.services['api-2'] = { ...structuredClone(api), ports: [`127.0.0.1:${api2Port}:8080`] };
compose.services['embedding-worker-2'] = structuredClone(worker);
Object.assign(dispatcher.environment, receiverEnv);
dispatcher.volumes = [...dispatcher.volumes, receiverMount];
compose.services.receiver = {
  image: 'docker.io/library/node:20-bookworm-slim',
  command: ['node', '/receiver/receiver.mjs'],
  volumes: [receiverMount],
  ports: [`127.0.0.1:${receiverPort}:8444`],
};
fs.writeFileSync(out, JSON.stringify(compose, null, 2));

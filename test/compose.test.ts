import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { CONFIG_VARIABLES, loadConfig } from '@ams/core';
import { builtEntry } from '@ams/testing';

const root = path.resolve(__dirname, '..');
const compose = YAML.parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true });
const rootPackage = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

const SERVICES = {
  api: 'services/api/src/server.ts',
  'embedding-worker': 'services/embedding-worker/src/main.ts',
  'webhook-dispatcher': 'services/webhook-dispatcher/src/main.ts',
} as const;

describe('docker-compose.yml', () => {
  it.each(Object.entries(SERVICES))('runs %s with node on the built form of an entry point that exists, and an environment the config accepts', (name, entry) => {
    const service = compose.services[name];
    // The image's NODE_OPTIONS carries the export condition that resolves @ams/* to dist/.
    expect(service.command).toEqual(['node', builtEntry(entry)]);
    expect(fs.existsSync(path.join(root, entry))).toBe(true);
    // The same entry point as the npm script a developer runs locally.
    const script = name === 'api' ? rootPackage.scripts['start:api'] : rootPackage.scripts[`start:${name}`];
    expect(script).toContain(entry);
    for (const variable of Object.keys(service.environment)) expect(CONFIG_VARIABLES).toContain(variable);
    const config = loadConfig(service.environment);
    expect(config.mode).toBe('split');
    expect(config.redisUrl).toBeDefined();
  });

  it('documents every config variable in .env.example', () => {
    const example = fs.readFileSync(path.join(root, '.env.example'), 'utf8');
    const documented = [...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect([...documented].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });
});

describe('infra/Dockerfile', () => {
  const dockerfile = fs.readFileSync(path.join(root, 'infra/Dockerfile'), 'utf8');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

  it('builds in one stage and runs built JavaScript with node in another, as a non-root user, with a health check', () => {
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(2);
    expect(dockerfile).toContain('npm run build');
    expect(runtime).toContain('COPY --from=build /runtime ./');
    expect(runtime).toMatch(/npm ci --omit=dev/);
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^HEALTHCHECK .*\/v1\/health/ms);
    expect(runtime).toContain('NODE_OPTIONS=--conditions=ams-dist');
    expect(runtime).toContain(`CMD ["node", "${builtEntry(SERVICES.api)}"]`);
    expect(runtime).not.toContain('tsx');
  });
});

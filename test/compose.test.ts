import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { CONFIG_VARIABLES, loadConfig } from '@ams/core';

const root = path.resolve(__dirname, '..');
const compose = YAML.parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true });
const rootPackage = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

const SERVICES = {
  api: 'services/api/src/server.ts',
  'embedding-worker': 'services/embedding-worker/src/main.ts',
  'webhook-dispatcher': 'services/webhook-dispatcher/src/main.ts',
} as const;

describe('docker-compose.yml', () => {
  it.each(Object.entries(SERVICES))('runs %s with an entry point that exists and an environment the config accepts', (name, entry) => {
    const service = compose.services[name];
    expect(service.command.join(' ')).toContain(entry);
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

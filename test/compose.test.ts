import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { CONFIG_VARIABLES, loadConfig } from '@ams/core';
import { builtEntry } from '@ams/testing';

const root = path.resolve(__dirname, '..');
const composeText = fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
/** The file as compose reads it: `${NAME:-default}` from `env` (else the default), `$$` a dollar. */
const composeWith = (env: Record<string, string> = {}) =>
  YAML.parse(
    composeText.replace(/\$\{(\w+):-([^}]*)\}|\$\$/g, (_match, name: string | undefined, fallback: string) => (name ? (env[name] ?? fallback) : '$')),
    { merge: true },
  );
const compose = composeWith();
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

  describe('the citus profile', () => {
    const citus = composeWith({ AMS_DATABASE_HOST: 'citus-coordinator' });
    const nodes = ['citus-coordinator', 'citus-worker-1', 'citus-worker-2'];

    it('runs a coordinator and two workers from the official Citus image with pgvector, registered by a one-off setup, in that profile only', () => {
      for (const name of [...nodes, 'citus-setup']) {
        expect(compose.services[name].profiles).toEqual(['citus']);
        const build = compose.services[name].build;
        const dockerfile = fs.readFileSync(path.join(root, build.context, build.dockerfile), 'utf8');
        expect(dockerfile).toMatch(/^ARG CITUS_IMAGE=citusdata\/citus:\S+$/m);
        expect(dockerfile).toMatch(/^FROM \$\{CITUS_IMAGE\}$/m);
        expect(dockerfile).toContain('pgvector');
      }
      for (const name of nodes) expect(compose.services[name].command).toEqual(['postgres', '-c', 'wal_level=logical']);
      const setup = compose.services['citus-setup'];
      for (const name of nodes) expect(setup.depends_on[name]).toEqual({ condition: 'service_healthy' });
      expect(setup.command[0]).toContain("citus_add_node(n, 5432) FROM unnest(ARRAY['citus-worker-1', 'citus-worker-2'])");
    });

    it.each(Object.keys(SERVICES))('points %s at the coordinator when asked, after the setup (a dependency only with the profile)', (name) => {
      expect(compose.services[name].environment.DATABASE_URL).toBe('postgres://ams:ams@postgres:5432/ams');
      const service = citus.services[name];
      const url = new URL(service.environment.DATABASE_URL);
      expect(url.hostname).toBe('citus-coordinator');
      const node = citus.services['citus-coordinator'].environment;
      expect([url.username, url.password, url.pathname.slice(1)]).toEqual([node.POSTGRES_USER, node.POSTGRES_PASSWORD, node.POSTGRES_DB]);
      expect(loadConfig(service.environment).databaseUrl).toBe(service.environment.DATABASE_URL);
      expect(service.depends_on['citus-setup']).toEqual({ condition: 'service_completed_successfully', required: false });
    });
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
    // The manifests, the build, the runtime.
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(3);
    expect(dockerfile).toContain('npm run build');
    expect(runtime).toContain('COPY --from=build /runtime ./');
    expect(runtime).toMatch(/npm ci --omit=dev/);
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^HEALTHCHECK .*\/v1\/health/ms);
    expect(runtime).toContain('NODE_OPTIONS=--conditions=ams-dist');
    expect(runtime).toContain(`CMD ["node", "${builtEntry(SERVICES.api)}"]`);
    expect(runtime).not.toContain('tsx');
  });

  it('installs the dependencies in a layer of their own, before the sources are copied', () => {
    const build = dockerfile.slice(dockerfile.indexOf(' AS build'), dockerfile.lastIndexOf('\nFROM '));
    const manifests = dockerfile.slice(dockerfile.indexOf(' AS manifests'), dockerfile.indexOf(' AS build'));
    expect(manifests).toMatch(/-name package\.json/);
    expect(manifests).toMatch(/-name package-lock\.json/);
    const steps = ['COPY --from=manifests /app ./', 'RUN npm ci', 'COPY . .', 'RUN npm run build'].map((step) => build.indexOf(step));
    expect(steps.every((at) => at > 0)).toBe(true);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
  });
});

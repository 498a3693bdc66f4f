import type { Knex } from 'knex';
import type { MemoryRow } from '../../src/repositories/memories.repository';
import type { DeliveryRow } from '../../src/repositories/webhook-deliveries.repository';
import type { ReembedRunRow } from '../../src/repositories/reembed.repository';
import { LABELS, NAMES } from './render';

const labelled = <T extends object>(value: T, label: string): T => (LABELS.set(value, label), value);

/**
 * Fixed representative values: the same ids, times and vectors on every run, so a file in
 * packages/db/sql changes only when the SQL does. The prefix says what an id names.
 */
const id = (prefix: string, n: number) => `${prefix}000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
export const ACCOUNT = id('a1', 1);
const OTHER_ACCOUNT = id('a1', 2);
export const AGENT = id('a2', 1);
export const PROJECT = id('a3', 1);
export const OTHER_PROJECT = id('a3', 2);
export const SESSION = id('a4', 1);
export const MEMORY = id('a5', 1);
export const PENDING_MEMORY = id('a5', 9);
export const NEW_MEMORY = id('a5', 10);
export const ENTITY = id('a6', 1);
export const DECISION = id('a7', 1);
export const PATTERN = id('a8', 1);
export const WEBHOOK = id('a9', 1);
export const DELIVERY = id('b1', 1);
export const API_KEY = id('b2', 1);
export const IMPORT_JOB = id('b3', 1);
export const EVENT = id('b4', 1);
export const RUN = id('b5', 1);
export const OAUTH_REQUEST = id('c1', 1);
export const OAUTH_GRANT = id('c2', 1);
export const OAUTH_CLIENT = 'client-7f3a';

/** The name an entry's comment gives each fixed id. */
const ID_NAMES: ReadonlyMap<string, string> = new Map<string, string>([
  [ACCOUNT, 'ACCOUNT'], [OTHER_ACCOUNT, 'OTHER_ACCOUNT'], [AGENT, 'AGENT'], [PROJECT, 'PROJECT'], [OTHER_PROJECT, 'OTHER_PROJECT'],
  [SESSION, 'SESSION'], [MEMORY, 'MEMORY'], [PENDING_MEMORY, 'PENDING_MEMORY'], [NEW_MEMORY, 'NEW_MEMORY'], [ENTITY, 'ENTITY'],
  [DECISION, 'DECISION'], [PATTERN, 'PATTERN'], [WEBHOOK, 'WEBHOOK'], [DELIVERY, 'DELIVERY'], [API_KEY, 'API_KEY'],
  [IMPORT_JOB, 'IMPORT_JOB'], [EVENT, 'EVENT'], [RUN, 'RUN'], [OAUTH_REQUEST, 'OAUTH_REQUEST'], [OAUTH_GRANT, 'OAUTH_GRANT'],
]);
for (const [value, name] of ID_NAMES) NAMES.set(value, name);

/** How the SQL's ids read: the first two characters say what an id names. */
export const ID_LEGEND =
  'a1… account, a2… agent, a3… project, a4… session, a5… memory, a6… entity, a7… decision, a8… pattern, a9… webhook, b1… delivery, b2… API key, b3… import job, b4… event, b5… re-embed run, c1… OAuth request, c2… OAuth grant';

export const MODEL = 'Xenova/all-MiniLM-L6-v2';
export const TARGET_MODEL = 'Xenova/bge-small-en-v1.5';
export const AT = new Date('2026-01-15T12:00:00.000Z');
export const EARLIER = new Date('2026-01-01T00:00:00.000Z');

/** A 384-component vector (the default model's size), the n-th of a fixed family. */
export const vector = (n = 0): string => `[${Array.from({ length: 384 }, (_, i) => ((((i + 1) * (n + 3)) % 17) / 17 - 0.5).toFixed(3)).join(',')}]`;

const CONTENTS = [
  'The billing service stores invoices in PostgreSQL',
  'PostgreSQL runs behind PgBouncer in transaction mode',
  'Invoices are archived after seven years',
  'The deploy pipeline runs database migrations first',
  'Citus distributes the memories table by account',
];

/** The live memories the reads find: enough for a semantic search's top 3 to come from the index alone. */
export const MEMORIES = CONTENTS.map((_, i) => id('a5', i + 1));
MEMORIES.forEach((m, i) => i > 0 && NAMES.set(m, `MEMORIES[${i}]`));

/** A memory row as the embedding queue hands it out (the fields its statements bind). */
export const memoryRow = (memoryId = PENDING_MEMORY): MemoryRow => labelled({
  account_id: ACCOUNT, id: memoryId, agent_id: AGENT, content: CONTENTS[0]!, metadata: {}, memory_type: 'fact', visibility: 'private',
  importance: 0.5, tier: 'warm', tier_explicit: false, archived: false, session_id: null, project_id: null, client_id: null,
  embedding_model: null, embedding_status: 'processing', embedding_error: null, embedding_attempts: 1, embedding_attempts_base: 0,
  dedup_threshold: null, webhook_url: null, duplicate_of: null, valid_from: null, valid_until: null, supersedes: null, superseded_by: null,
  created_at: AT, updated_at: AT, deleted_at: null, version: 1, expires_at: null,
}, `memoryRow(${NAMES.get(memoryId) ?? memoryId}, attempt 1)`);

/** The seeded delivery as a claim hands it out (its first attempt). */
export const deliveryRow = (): DeliveryRow => labelled({
  account_id: ACCOUNT, id: DELIVERY, webhook_id: WEBHOOK, target_url: null, event_id: EVENT, event_type: 'memory.created', payload: {},
  status: 'delivering', attempts: 0, next_attempt_at: EARLIER, locked_until: AT, last_attempt_at: null, last_status_code: null, last_error: null,
  response_excerpt: null, created_at: EARLIER, updated_at: EARLIER,
}, `deliveryRow(DELIVERY, claimed until ${AT.toISOString()})`);

/** The seeded re-embed run. */
export const runRow = (): ReembedRunRow => labelled({
  id: RUN, from_model: MODEL, target_model: TARGET_MODEL, dimensions: 384, status: 'running', total: 5, done: 5, cursor: null, rate_per_second: null,
  error: null, owner: 'worker-1', heartbeat_at: AT, started_at: EARLIER, updated_at: AT, switched_at: null, finished_at: null,
}, 'runRow(RUN)');

/** The rows every call finds (each call runs in a transaction rolled back after it). */
export async function seed(db: Knex): Promise<void> {
  await db('accounts').insert([
    { id: ACCOUNT, email: 'owner@example.com', created_at: EARLIER },
    { id: OTHER_ACCOUNT, email: 'other@example.com', created_at: AT },
  ]);
  await db('agents').insert({ account_id: ACCOUNT, id: AGENT, name: 'planner', created_at: EARLIER });
  await db('projects').insert([
    { account_id: ACCOUNT, id: PROJECT, slug: 'billing', name: 'Billing', created_at: EARLIER },
    { account_id: ACCOUNT, id: OTHER_PROJECT, slug: 'deploy', name: 'Deploy', created_at: EARLIER },
  ]);
  await db('sessions').insert({ account_id: ACCOUNT, id: SESSION, agent_id: AGENT, external_id: 'chat-1', project: 'billing', created_at: EARLIER });
  await db('memories').insert([
    ...CONTENTS.map((content, i) => ({
      account_id: ACCOUNT, id: MEMORIES[i], agent_id: AGENT, content, memory_type: 'fact', tier: 'warm', session_id: SESSION, project_id: PROJECT,
      embedding: vector(i), embedding_model: MODEL, embedding_status: 'ready', created_at: EARLIER, updated_at: EARLIER,
    })),
    { account_id: ACCOUNT, id: PENDING_MEMORY, agent_id: AGENT, content: CONTENTS[0], memory_type: 'fact', tier: 'warm', embedding_status: 'pending', created_at: EARLIER, updated_at: EARLIER },
  ]);
  await db('entities').insert({ account_id: ACCOUNT, id: ENTITY, name: 'PostgreSQL', entity_type: 'technology', created_at: EARLIER });
  await db('entity_memory_links').insert(MEMORIES.slice(0, 2).map((memoryId) => ({ account_id: ACCOUNT, entity_id: ENTITY, memory_id: memoryId, relevance_score: 0.9 })));
  await db('decisions').insert({
    account_id: ACCOUNT, id: DECISION, agent_id: AGENT, project_slug: 'billing', title: 'Use PostgreSQL', rationale: 'One database to run',
    status: 'active', tags: ['storage'], embedding: vector(1), embedding_model: MODEL, created_at: EARLIER,
  });
  await db('patterns').insert({
    account_id: ACCOUNT, id: PATTERN, title: 'Migrations first', description: 'Run migrations before the deploy', scope: 'global',
    category: 'deploy', tags: ['deploy'], embedding: vector(2), embedding_model: MODEL, created_at: EARLIER,
  });
  await db('webhooks').insert({ account_id: ACCOUNT, id: WEBHOOK, url: 'https://hooks.example.com/ams', event_types: ['memory.created'], secret: 'plain-secret', created_at: EARLIER });
  await db('webhook_deliveries').insert({ account_id: ACCOUNT, id: DELIVERY, webhook_id: WEBHOOK, event_id: EVENT, event_type: 'memory.created', payload: {}, status: 'pending', next_attempt_at: EARLIER, created_at: EARLIER });
  await db('api_keys').insert({ account_id: ACCOUNT, id: API_KEY, name: 'ci', key_hash: 'hash-of-the-key', key_prefix: 'ams_ci', scopes: ['memories:read'], created_at: EARLIER });
  await db('import_jobs').insert({ account_id: ACCOUNT, id: IMPORT_JOB, status: 'running', on_conflict: 'skip', heartbeat_at: EARLIER, created_at: EARLIER });
  await db('account_retiering').insert({ account_id: ACCOUNT, enabled: true });
  await db('search_events').insert({ account_id: ACCOUNT, agent_id: AGENT, query: 'billing', search_mode: 'semantic', result_count: 1, response_ms: 9, memory_ids: [MEMORIES[0]], created_at: EARLIER });
  await db('embedding_state').insert({ active_model: MODEL, dimensions: 384 }).onConflict('singleton').ignore();
  await db('reembed_runs').insert({ id: RUN, from_model: MODEL, target_model: TARGET_MODEL, dimensions: 384, total: 5, status: 'running', owner: 'worker-1', heartbeat_at: AT, started_at: EARLIER });
  await db('oauth_clients').insert({ id: OAUTH_CLIENT, metadata: { client_name: 'Example host', redirect_uris: ['https://host.example.com/callback'] }, created_at: EARLIER });
  await db('oauth_requests').insert({
    id: OAUTH_REQUEST, client_id: OAUTH_CLIENT, redirect_uri: 'https://host.example.com/callback', code_challenge: 'challenge', scopes: ['read'],
    resource: 'https://memory.example.com/mcp', browser_hash: 'browser-hash', csrf_token: 'csrf-token', expires_at: AT, created_at: EARLIER,
  });
  await db('oauth_grants').insert({ account_id: ACCOUNT, id: OAUTH_GRANT, client_id: OAUTH_CLIENT, scopes: ['read'], resource: 'https://memory.example.com/mcp', created_at: EARLIER });
  await db.raw('ANALYZE');
}

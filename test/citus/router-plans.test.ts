import type { Knex } from '@ams/db';
import { VectorParam } from '@ams/embeddings';
import { bearer, createAccount, createTestApp, TestAccount, TestApp } from '@ams/testing';

/**
 * On Citus, every statement a tenant's request runs must be a router query: one task, on the one
 * shard holding that account (docs/scaling.md). The statements are not copied here: each flow is
 * run through the API with the app's own knex recording what it sends, and every recorded
 * statement touching a distributed or reference table is EXPLAINed with its own bindings.
 */
interface Statement {
  sql: string;
  bindings: unknown[];
}

/**
 * The statement with its bindings written in as literals: what a custom plan sees. (Citus cannot
 * EXPLAIN some parameterised INSERT … SELECTs it runs fine.)
 */
function inlined(s: Statement): string {
  return s.sql.replace(/\$(\d+)/g, (_, n: string) => literal(s.bindings[Number(n) - 1]));
}

/** A binding as pg sends it (arrays as array literals, dates as ISO text, a query vector as its literal, objects as JSON), quoted. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  const text = (v: unknown): string =>
    Array.isArray(v)
      ? `{${v.map((x) => (x === null ? 'NULL' : `"${text(x).replace(/["\\]/g, '\\$&')}"`)).join(',')}}`
      : v instanceof Date
        ? v.toISOString()
        : v instanceof VectorParam
          ? v.toString()
          : typeof v === 'object'
            ? JSON.stringify(v)
          : String(v);
  return `'${text(value).replace(/'/g, "''")}'`;
}

const CITUS_TABLES = /\b(accounts|api_keys|agents|projects|sessions|memories|entities|entity_memory_links|decisions|patterns|pattern_adoptions|webhooks|webhook_deliveries|search_events|project_relationships|import_jobs)\b/;

describe('Citus: every tenant statement is a single-shard router query', () => {
  let t: TestApp;
  let acct: TestAccount;
  let recorded: Statement[] = [];
  const record = (q: { sql: string; bindings?: unknown[] }) => recorded.push({ sql: q.sql, bindings: q.bindings ?? [] });

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
    t.ctx.db.knex.on('query', record);
    // A webhook, so creates write outbox rows; a few memories with entities to search, list and count.
    await t.request().post('/v1/webhooks').set(bearer(acct.key)).send({ url: 'https://example.com/hook' }).expect(201);
    for (const content of ['Kafka consumer lag alert fires above ten thousand messages', 'Postgres vacuum runs nightly at two', 'Kafka brokers run on three nodes in Frankfurt']) {
      await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'router', content, auto_extract_entities: true, project: 'infra' }).expect(201);
    }
  });
  afterAll(async () => {
    t.ctx.db.knex.off('query', record);
    await t.close();
  });

  /** The flow's statements that touch a Citus table, each with its plan's task counts. */
  async function plansOf(flow: () => Promise<unknown>): Promise<Array<{ sql: string; tasks: number[]; plan: string }>> {
    recorded = [];
    await flow();
    const statements = recorded.filter((s) => /^\s*(SELECT|WITH|INSERT|UPDATE|DELETE)\b/i.test(s.sql) && CITUS_TABLES.test(s.sql));
    const conn = (await t.ctx.db.knex.client.acquireConnection()) as { query(sql: string, values: unknown[]): Promise<{ rows: Array<Record<string, string>> }> };
    try {
      const plans = [];
      for (const s of statements) {
        const { rows } = await conn.query(`EXPLAIN ${inlined(s)}`, []).catch((err: Error) => {
          throw new Error(`EXPLAIN failed (${err.message}) for:\n${s.sql}`);
        });
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        const tasks = [...plan.matchAll(/Task Count: (\d+)/g)].map((m) => Number(m[1]));
        // No Citus node: a statement on the coordinator's own tables or catalogs (pg_stats).
        if (/Citus/.test(plan)) plans.push({ sql: s.sql, tasks, plan });
      }
      return plans;
    } finally {
      await (t.ctx.db.knex.client as Knex.Client).releaseConnection(conn);
    }
  }

  /**
   * Every Citus step of each statement is one task, and all of a statement's tasks run on one
   * worker (the coordinator's own tables and the reference tables' local copy aside). A statement
   * with data-modifying CTEs (a create) runs its CTEs as steps on that same shard, in the one
   * transaction: no two-phase commit. Rows computed on the coordinator and inserted
   * ("pull to coordinator") go to their account's shard; a "repartition" would spread them.
   */
  function expectRouter(plans: Array<{ sql: string; tasks: number[]; plan: string }>): void {
    expect(plans.length).toBeGreaterThan(0);
    const workerPorts = (plan: string) => new Set([...plan.matchAll(/Node: host=\S+ port=(\d+)/g)].map((m) => m[1]).filter((p) => p !== coordinatorPort));
    const spread = plans.filter((p) => p.tasks.some((n) => n !== 1) || /repartition/.test(p.plan) || workerPorts(p.plan).size > 1);
    expect(spread.map((p) => `${p.sql}\n--- plan ---\n${p.plan}`)).toEqual([]);
  }
  const coordinatorPort = new URL(process.env.DATABASE_URL!).port;

  const memories = () => t.request().get('/v1/memories').set(bearer(acct.key));

  it('create: the memory, its entities and links, the outbox rows', async () => {
    const plans = await plansOf(() =>
      t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'router', content: 'Redis sentinel fails over to the replica in Berlin', auto_extract_entities: true, project: 'infra' }).expect(201),
    );
    expect(plans.some((p) => /INSERT INTO "?memories/i.test(p.sql))).toBe(true);
    expect(plans.some((p) => /webhook_deliveries/.test(p.sql))).toBe(true);
    expectRouter(plans);
  });

  it('v2 create (queued for the embedding worker)', async () => {
    expectRouter(await plansOf(() => t.request().post('/v2/memories').set(bearer(acct.key)).send({ agent_id: 'router', content: 'The CDN purges its cache every hour' }).expect(202)));
  });

  it('list', async () => {
    expectRouter(await plansOf(() => memories().expect(200)));
  });

  it.each(['semantic', 'keyword', 'hybrid'])('search, %s, and its record', async (mode) => {
    const plans = await plansOf(async () => {
      await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'kafka consumer lag', search_mode: mode }).expect(200);
      await t.ctx.searches.written();
    });
    expect(plans.some((p) => /INSERT INTO search_events/.test(p.sql))).toBe(true);
    expectRouter(plans);
  });

  it('keyword search: its words counted, then its ranking with its rows, two router hops', async () => {
    const plans = await plansOf(() => t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'kafka consumer lag', search_mode: 'keyword' }).expect(200));
    // The search's record is written after the answer, outside the search.
    expect(plans.filter((p) => !/search_events/.test(p.sql)).map((p) => p.sql.slice(0, 60))).toHaveLength(2);
  });

  it('agent stats', async () => {
    const list = await t.request().get('/v1/agents').set(bearer(acct.key)).expect(200);
    const agent = (list.body.data as Array<{ id: string; name: string }>).find((a) => a.name === 'router')!;
    expectRouter(await plansOf(() => t.request().get(`/v1/agents/${agent.id}/stats`).set(bearer(acct.key)).expect(200)));
  });

  it('context build', async () => {
    expectRouter(await plansOf(() => t.request().post('/v2/context/build').set(bearer(acct.key)).send({ query: 'kafka brokers' }).expect(200)));
  });

  it('project context', async () => {
    expectRouter(await plansOf(() => t.request().get('/v1/projects/infra/context').set(bearer(acct.key)).expect(200)));
  });

  it('export', async () => {
    expectRouter(await plansOf(() => t.request().get('/v1/export').set(bearer(acct.key)).expect(200)));
  });
});

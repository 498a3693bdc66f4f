import crypto from 'node:crypto';
import { accountsRepository, agentsRepository, createDatabase, Database, Knex, webhooksRepository } from '@ams/db';
import { insertMemories } from '@ams/memories';

/**
 * A create on Citus, as the coordinator sends it on (citus.log_remote_commands): the memory, its
 * entities and links, its agent's activity and its outbox rows reach the account's worker alone,
 * in one transaction there, in a bounded number of commands. (Citus still commits it in two phases
 * on that one worker: its INSERT … SELECTs that go through the coordinator copy rows, and every
 * copy is committed so.)
 */
interface Issued {
  command: string;
  port: string;
}

describe('Citus: a create’s round trips', () => {
  let db: Database;
  let issued: Issued[] = [];

  beforeAll(async () => {
    // One connection: every statement of the create runs on the one that logs what it sends.
    db = await createDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '', dbPoolMax: 1 });
    const conn = (await db.knex.client.acquireConnection()) as {
      on(event: 'notice', fn: (n: { message?: string; detail?: string }) => void): void;
      query(sql: string): Promise<unknown>;
    };
    conn.on('notice', (n) => {
      const port = /on server \S+:(\d+)/.exec(n.detail ?? '')?.[1];
      if (n.message?.startsWith('issuing ') && port) issued.push({ command: n.message.slice('issuing '.length), port });
    });
    await conn.query('SET citus.log_remote_commands = on');
    await (db.knex.client as Knex.Client).releaseConnection(conn);
  });
  afterAll(async () => {
    await db.close();
  });

  const workerOf = async (accountId: string) =>
    String(
      (await db.knex.raw(`SELECT nodeport FROM citus_shards WHERE table_name = 'memories'::regclass AND shardid = get_shard_id_for_distribution_column('memories', ?::uuid)`, [accountId])).rows[0]
        .nodeport,
    );

  async function create(entities: boolean): Promise<{ worker: string; issued: Issued[] }> {
    const account = (await accountsRepository.insert(db.knex, { email: `trips-${crypto.randomUUID()}@example.com`, passwordHash: null }))!;
    const agent = await agentsRepository.ensureByName(db.knex, account.id, 'trips');
    // A subscribed webhook: the create writes its outbox row.
    await webhooksRepository.insert(db.knex, account.id, { url: 'https://example.com/hook' });
    const worker = await workerOf(account.id);
    issued = [];
    const memory = {
      accountId: account.id,
      agentId: agent.id,
      content: entities ? 'Kafka brokers in Frankfurt page the on-call team' : 'the build is green again',
      metadata: {},
      memoryType: 'fact' as const,
      visibility: 'private' as const,
      importance: 0.5,
      tier: 'warm' as const,
      tierExplicit: false,
      sessionId: null,
      projectId: null,
      embedding: `[${Array.from({ length: 384 }, () => 0.05).join(',')}]`,
      embeddingModel: 'test-model',
      embeddingStatus: 'ready' as const,
    };
    const { rows, deliveries } = await insertMemories(db.knex, [memory], entities, { keyId: null, agentId: agent.id });
    const sent = [...issued];
    expect(rows).toHaveLength(1);
    expect(deliveries).toHaveLength(1);
    if (entities) expect(Number((await db.knex('entity_memory_links').where({ account_id: account.id }).count('* as n'))[0]!.n)).toBeGreaterThan(0);
    return { worker, issued: sent };
  }

  // Commands sent (BEGIN with the actor's settings, the agent's default expiry, each step, the
  // prepare and commit), measured with Citus 13.2: 14 and 9. A step that does not name its account
  // as a value, or links made inside the statement, would reach both workers (mem's rows shipped to
  // every worker), so a create would fail while any worker is down.
  it.each([
    ['with entities', true, 14],
    ['without entities', false, 9],
  ])('%s: every command goes to the account’s worker alone, no more of them than measured', async (_name, entities, most) => {
    const { worker, issued: sent } = await create(entities);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.filter((c) => c.port !== worker)).toEqual([]);
    expect(sent.length).toBeLessThanOrEqual(most);
  });
});

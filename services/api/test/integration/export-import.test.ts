import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { removeOrphanSpools } from '@ams/portability';
import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';

type Rec = Record<string, unknown> & { type: string };

// Both backends: the jest projects run this file on PostgreSQL and again on PGlite.
describe('export and import', () => {
  let t: TestApp;
  let a: TestAccount;
  const ids: Record<string, string> = {};

  const post = async (key: string, path: string, body: object) => {
    const res = await t.request().post(path).set(bearer(key)).send(body);
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const exportOf = async (key: string, query = 'include_vectors=true'): Promise<Rec[]> => {
    const res = await t.request().get(`/v1/export?${query}`).set(bearer(key)).buffer(true).parse((r, cb) => {
      let text = '';
      r.on('data', (c: Buffer) => (text += c.toString()));
      r.on('end', () => cb(null, text));
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/x-ndjson/);
    return (res.body as string).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Rec);
  };
  const sendImport = (key: string, lines: Array<Rec | string>, query = '') => {
    const body = lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
    return t.request().post(`/v1/import${query}`).set(bearer(key)).set('Content-Type', 'application/x-ndjson').send(body);
  };
  /** Sends the lines, then answers the job once it has ended: GET /v1/import/jobs/{id}. */
  const importInto = async (key: string, lines: Array<Rec | string>, query = '') => {
    const accepted = await sendImport(key, lines, query);
    if (accepted.status !== 202) return accepted;
    expect(accepted.headers.location).toBe(`/v1/import/jobs/${accepted.body.id}`);
    expect(accepted.body).toMatchObject({ object: 'import_job', status: 'running' });
    await t.ctx.imports!.settled(accepted.body.id);
    return t.request().get(accepted.headers.location!).set(bearer(key));
  };
  /** An export minus what must differ between two exports: when it was made. */
  const comparable = (records: Rec[]) => records.map((r) => (r.type === 'header' ? { ...r, exported_at: 'x' } : r));

  beforeAll(async () => {
    t = await createTestApp();
    a = await createAccount(t.ctx);
    const k = a.key;
    ids.project = (await post(k, '/v1/projects', { name: 'Atlas', slug: 'atlas', stack: { db: 'postgres' }, metadata: { owner: 'ops' } })).id;
    ids.session = (await post(k, '/v1/sessions', { agent_id: 'planner', external_id: 'ext-1', project: 'atlas', title: 'Kick-off' })).id;
    ids.m1 = (await post(k, '/v1/memories', { agent_id: 'planner', content: 'Atlas stores vectors in PostgreSQL with pgvector', metadata: { topic: 'db', n: 3 }, importance: 0.9, session_id: ids.session, project: 'atlas' })).id;
    ids.m2 = (await post(k, '/v1/memories/batch', { memories: [{ agent_id: 'planner', content: 'The deploy window is Tuesday morning', client_id: 'client-7' }] })).results[0].memory_id;
    await t.request().patch(`/v1/memories/${ids.m2}`).set(bearer(k)).send({ visibility: 'confidential' }).expect(200);
    ids.m3 = (await post(k, '/v1/memories', { agent_id: 'reviewer', content: 'Reviews need two approvals', importance: 0.2 })).id;
    await t.request().patch(`/v1/memories/${ids.m3}`).set(bearer(k)).send({ archived: true }).expect(200);
    ids.entity = (await post(k, '/v1/entities', { name: 'Atlas', entity_type: 'project', metadata: { since: 2024 } })).id;
    await post(k, '/v1/entities/link', { entity_id: ids.entity, memory_id: ids.m1, relationship: 'about', relevance_score: 0.8 });
    ids.d1 = (await post(k, '/v1/decisions', { title: 'Use pgvector', rationale: 'One database to run', agent_id: 'planner', session_id: ids.session, project_slug: 'atlas', tags: ['db'] })).id;
    ids.d2 = (await post(k, `/v1/decisions/${ids.d1}/supersede`, { title: 'Use pgvector with HNSW', rationale: 'Recall at speed' })).id;
    ids.pattern = (await post(k, '/v1/patterns', { title: 'Outbox', description: 'Write events in the same transaction', tags: ['events'], source_project: 'atlas' })).id;
    await post(k, `/v1/patterns/${ids.pattern}/adopt`, { project: 'atlas' });
    ids.webhook = (await post(k, '/v1/webhooks', { url: 'https://example.com/hook', event_types: ['memory.created'], secret: 'a-long-webhook-secret-value' })).id;
    // PGlite starts and migrates in WASM: slow on a loaded machine.
  }, 120_000);
  afterAll(() => t.close());

  it('exports every kind of record, typed, one per line, without webhook secrets', async () => {
    const records = await exportOf(a.key);
    expect(records[0]).toMatchObject({ type: 'header', format: 'ams-export', version: 1, embedding_model: t.ctx.embedder.model, includes_vectors: true });
    const types = records.map((r) => r.type);
    expect(new Set(types)).toEqual(new Set(['header', 'agent', 'project', 'session', 'memory', 'memory_version', 'entity', 'entity_link', 'decision', 'pattern', 'pattern_adoption', 'webhook']));
    // Referenced kinds come first.
    expect(types.indexOf('agent')).toBeLessThan(types.indexOf('memory'));
    expect(types.lastIndexOf('memory')).toBeLessThan(types.indexOf('entity_link'));
    const m1 = records.find((r) => r.id === ids.m1)!;
    expect(m1).toMatchObject({ type: 'memory', agent: 'planner', content: 'Atlas stores vectors in PostgreSQL with pgvector', metadata: { topic: 'db', n: 3 }, session_id: ids.session, project_id: ids.project, embedding_model: t.ctx.embedder.model });
    expect(m1.embedding).toHaveLength(384);
    expect(records.find((r) => r.id === ids.d1)).toMatchObject({ status: 'superseded', superseded_by: ids.d2 });
    const webhook = records.find((r) => r.type === 'webhook')!;
    expect(webhook).toMatchObject({ url: 'https://example.com/hook', has_secret: true });
    expect(JSON.stringify(records)).not.toContain('a-long-webhook-secret-value');
    expect(webhook).not.toHaveProperty('secret');
    // Without include_vectors there are none.
    expect((await exportOf(a.key, '')).filter((r) => 'embedding' in r)).toEqual([]);
  });

  it('round-trips losslessly: export → import into a fresh account → export', async () => {
    const first = await exportOf(a.key);
    const b = await createAccount(t.ctx);
    const res = await importInto(b.key, first);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'import_job', status: 'completed', lines: first.length, error_count: 0, errors: [], reembedded: 0, failure: null });
    expect(res.body.records).toEqual({ read: first.length - 1, stored: first.length - 1, skipped: 0, failed: 0 });
    expect(res.body.counts.memory).toEqual({ created: 3, updated: 0, skipped: 0, failed: 0 });
    const second = await exportOf(b.key);
    // Ids are kept (they are free in a fresh account); only the webhook's secret does not travel.
    const expected = comparable(first).map((r) => (r.type === 'webhook' ? { ...r, has_secret: false } : r));
    expect(comparable(second)).toEqual(expected);
  });

  it('carries each memory\'s history: its versions, expiry and version count come back as they were', async () => {
    const records = await exportOf(a.key);
    const m2Versions = records.filter((r) => r.type === 'memory_version' && r.memory_id === ids.m2);
    expect(m2Versions.map((r) => [r.version, r.change])).toEqual([[1, 'create'], [2, 'update']]);
    expect(records.find((r) => r.type === 'memory' && r.id === ids.m2)).toMatchObject({ version: 2, expires_at: null });
    const b = await createAccount(t.ctx);
    expect((await importInto(b.key, records.filter((r) => r.type !== 'webhook'))).body.records.failed).toBe(0);
    const history = await t.request().get(`/v1/memories/${ids.m2}/history`).set(bearer(b.key));
    const original = await t.request().get(`/v1/memories/${ids.m2}/history`).set(bearer(a.key));
    expect(history.body.data).toEqual(original.body.data);
    // A change after the import continues the numbering.
    const patched = await t.request().patch(`/v1/memories/${ids.m2}`).set(bearer(b.key)).send({ importance: 0.7 });
    expect(patched.body.version).toBe(3);
  });

  it('another account never sees the data, and the same ids in two accounts stay apart', async () => {
    const other = await createAccount(t.ctx);
    await post(other.key, '/v1/memories', { agent_id: 'planner', content: 'Other account secret plan zebra' });
    const records = await exportOf(a.key);
    expect(JSON.stringify(records)).not.toContain('zebra');
    expect(JSON.stringify(await exportOf(other.key))).not.toContain('Atlas stores vectors');
  });

  it('on_conflict skip keeps what is stored; overwrite replaces it', async () => {
    const b = await createAccount(t.ctx);
    const records = await exportOf(a.key);
    expect((await importInto(b.key, records)).status).toBe(200);
    await t.request().patch(`/v1/memories/${ids.m1}`).set(bearer(b.key)).send({ content: 'Changed in B' }).expect(200);

    const skipped = await importInto(b.key, records);
    expect(skipped.body.counts.memory).toEqual({ created: 0, updated: 0, skipped: 3, failed: 0 });
    expect((await t.request().get(`/v1/memories/${ids.m1}`).set(bearer(b.key))).body.content).toBe('Changed in B');

    const overwritten = await importInto(b.key, records, '?on_conflict=overwrite');
    expect(overwritten.body.counts.memory).toEqual({ created: 0, updated: 3, skipped: 0, failed: 0 });
    expect((await t.request().get(`/v1/memories/${ids.m1}`).set(bearer(b.key))).body.content).toBe('Atlas stores vectors in PostgreSQL with pgvector');
  });

  it('maps onto what the account already names: an agent of the same name, a project of the same slug', async () => {
    const b = await createAccount(t.ctx);
    const planner = (await post(b.key, '/v1/agents', { name: 'planner' })).id;
    const records = await exportOf(a.key);
    const res = await importInto(b.key, records);
    expect(res.body.error_count).toBe(0);
    expect(res.body.counts.agent).toMatchObject({ created: 1, skipped: 1 });
    const m1 = await t.request().get(`/v1/memories/${ids.m1}`).set(bearer(b.key));
    expect(m1.body.agent_id).toBe(planner);
  });

  it('re-embeds only what lacks a vector of the current model', async () => {
    const b = await createAccount(t.ctx);
    const records = (await exportOf(a.key)).map((r) => (r.id === ids.m2 ? { ...r, embedding_model: 'some-other-model' } : r.id === ids.m3 ? { ...r, embedding: undefined } : r));
    const res = await importInto(b.key, records);
    expect(res.body).toMatchObject({ error_count: 0, reembedded: 2 });
    const search = await t.request().post('/v1/memories/search').set(bearer(b.key)).send({ query: 'deploy window Tuesday', include_confidential: true });
    expect(search.body.data[0].memory.id).toBe(ids.m2);
  });

  it('reports each bad line with its number and type, skips it, and changes nothing stored', async () => {
    const b = await createAccount(t.ctx);
    const records = await exportOf(a.key);
    expect((await importInto(b.key, records)).status).toBe(200);
    const m1 = records.find((r) => r.id === ids.m1)!;
    const lines: Array<Rec | string> = [
      '{"type": "memory", "id": ',
      { type: 'gizmo', id: ids.m1 },
      { ...m1, importance: 'very' },
      { ...m1, content: 'overwritten by a bad line', memory_type: 'gossip' },
      { type: 'entity_link', entity_id: '00000000-0000-4000-8000-000000000000', memory_id: ids.m1 },
      '[1, 2]',
      { type: 'agent', id: '6f1d7c2e-0000-4000-8000-000000000001', name: 'newcomer' },
    ];
    const res = await importInto(b.key, lines, '?on_conflict=overwrite');
    expect(res.status).toBe(200);
    expect(res.body.error_count).toBe(6);
    expect(res.body.errors).toEqual([
      { line: 1, message: expect.stringMatching(/^not valid JSON/) },
      { line: 2, field: 'type', message: expect.stringMatching(/unknown record type "gizmo"/) },
      { line: 3, type: 'memory', field: 'importance', message: expect.stringMatching(/^importance: .*number/) },
      { line: 4, type: 'memory', field: 'memory_type', message: expect.stringMatching(/^memory_type: /) },
      { line: 5, type: 'entity_link', field: 'entity_id', message: expect.stringMatching(/^entity_id: entity 0{8}-.* is neither in this import nor in the account/) },
      { line: 6, message: 'a record must be a JSON object' },
    ]);
    expect(res.body.counts.agent).toEqual({ created: 1, updated: 0, skipped: 0, failed: 0 });
    expect((await t.request().get(`/v1/memories/${ids.m1}`).set(bearer(b.key))).body).toMatchObject({ content: m1.content, importance: 0.9 });
  });

  it('refuses content a create refuses (NUL, lone surrogates, far dates, lengths), naming line and field, never SQL', async () => {
    const b = await createAccount(t.ctx);
    const id = (n: number) => `6f1d7c2e-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const memory = (n: number, extra: Rec | object = {}) => ({ type: 'memory', id: id(n), agent: 'importer', content: `memory number ${n}`, ...extra });
    const lines = [
      memory(1, { content: 'nul \u0000 inside' }),
      memory(2, { content: 'lone \ud800 surrogate' }),
      memory(3, { created_at: '+100000-01-01T00:00:00Z' }),
      memory(4, { created_at: '10000-01-01T00:00:00Z' }),
      memory(5, { updated_at: '-000001-01-01T00:00:00Z' }),
      memory(6, { content: 'x'.repeat(100_001) }),
      memory(7, { metadata: { 'k\u0000': 1 } }),
      memory(8),
    ];
    const res = await importInto(b.key, lines);
    expect(res.body).toMatchObject({ status: 'completed', records: { read: 8, stored: 1, skipped: 0, failed: 7 }, error_count: 7, reembedded: 1 });
    expect(res.body.errors.map((e: { line: number; field?: string }) => [e.line, e.field])).toEqual([
      [1, 'content'],
      [2, 'content'],
      [3, 'created_at'],
      [4, 'created_at'],
      [5, 'updated_at'],
      [6, 'content'],
      [7, 'metadata'],
    ]);
    for (const e of res.body.errors as Array<{ message: string }>) expect(e.message).not.toMatch(/insert into|select |\$1|values \(/i);
    expect(res.body.errors[2].message).toMatch(/within 100 years of now/);
    // Only the good line is stored (and was the only one embedded); the list of the account still pages.
    const list = await t.request().get('/v1/memories?limit=1').set(bearer(b.key));
    expect(list.body.data.map((m: { id: string }) => m.id)).toEqual([id(8)]);
  });

  it('stores nothing twice when the same file is sent again, and embeds nothing it skips', async () => {
    const b = await createAccount(t.ctx);
    const records = (await exportOf(a.key, '')).filter((r) => r.type !== 'webhook');
    const first = await importInto(b.key, records);
    expect(first.body.records.failed).toBe(0);
    expect(first.body.reembedded).toBe(6); // 3 memories, 2 decisions, 1 pattern: no vectors in this export
    const again = await importInto(b.key, records);
    expect(again.body).toMatchObject({ status: 'completed', reembedded: 0, records: { read: records.length - 1, stored: 0, failed: 0, skipped: records.length - 1 } });
    const all = await exportOf(b.key, '');
    expect(all.filter((r) => r.type === 'memory')).toHaveLength(3);

    // Within one file too: the same id twice, or two records with one client_id, store once.
    const c = await createAccount(t.ctx);
    const twice = { type: 'memory', id: '6f1d7c2e-0000-4000-8000-0000000000d1', agent: 'dup', content: 'said twice' };
    const keyed = (n: number) => ({ type: 'memory', id: `6f1d7c2e-0000-4000-8000-0000000000e${n}`, agent: 'dup', content: `keyed ${n}`, client_id: 'same-key' });
    const dup = await importInto(c.key, [twice, twice, keyed(1), keyed(2)]);
    expect(dup.body).toMatchObject({ status: 'completed', records: { read: 4, stored: 2, skipped: 2, failed: 0 } });
  });

  it('prepares an imported memory as a create prepares it: equal field by field but for what the record carries', async () => {
    const b = await createAccount(t.ctx);
    const content = 'Decided to deploy the Atlas service to Kubernetes on Friday with Alice';
    const created = await post(b.key, '/v1/memories', { agent_id: 'planner', content });
    const importedId = '6f1d7c2e-0000-4000-8000-00000000abcd';
    const res = await importInto(b.key, [{ type: 'memory', id: importedId, agent: 'planner', content }], '?on_conflict=skip');
    expect(res.body).toMatchObject({ status: 'completed', records: { stored: 1 } });
    const a1 = (await t.request().get(`/v1/memories/${created.id}`).set(bearer(b.key))).body;
    const a2 = (await t.request().get(`/v1/memories/${importedId}`).set(bearer(b.key))).body;
    const differ = ['id', 'created_at', 'updated_at', 'last_accessed_at'];
    const strip = (m: Record<string, unknown>) => Object.fromEntries(Object.entries(m).filter(([k]) => !differ.includes(k)));
    expect(strip(a2)).toEqual(strip(a1));
    expect(a2.memory_type).not.toBe('fact');
  });

  it('filters by agent, project and creation time', async () => {
    const byAgent = await exportOf(a.key, 'agent=reviewer');
    expect(byAgent.filter((r) => r.type === 'memory').map((r) => r.id)).toEqual([ids.m3]);
    expect(byAgent.filter((r) => r.type === 'agent').map((r) => r.name)).toEqual(['reviewer']);
    expect(byAgent.some((r) => r.type === 'webhook' || r.type === 'pattern')).toBe(false);

    const byProject = await exportOf(a.key, 'project=atlas');
    expect(byProject.filter((r) => r.type === 'memory').map((r) => r.id)).toEqual([ids.m1]);
    // The superseding decision inherited the project.
    expect(byProject.filter((r) => r.type === 'decision').map((r) => r.id)).toEqual([ids.d1, ids.d2]);
    expect(byProject.filter((r) => r.type === 'pattern_adoption')).toHaveLength(1);
    expect(byProject.filter((r) => r.type === 'agent').map((r) => r.name)).toEqual(['planner']);

    const future = await exportOf(a.key, `created_after=${new Date(Date.now() + 86_400_000).toISOString()}`);
    expect(future.filter((r) => !['header', 'agent', 'project'].includes(r.type))).toEqual([]);
    const unknown = await exportOf(a.key, 'agent=nobody');
    expect(unknown.map((r) => r.type)).toEqual(['header']);
  });

  it('pages through more records than one database page holds, each exactly once', async () => {
    const b = await createAccount(t.ctx);
    for (let i = 0; i < 6; i++) {
      await post(b.key, '/v1/memories/batch', { memories: Array.from({ length: 100 }, (_, j) => ({ agent_id: 'bulk', content: `bulk memory ${i * 100 + j}` })) });
    }
    const memories = (await exportOf(b.key, '')).filter((r) => r.type === 'memory');
    expect(memories).toHaveLength(600);
    expect(new Set(memories.map((r) => r.id)).size).toBe(600);
  }, 120_000);

  it('gives people a Markdown document of the memories', async () => {
    const res = await t.request().get('/v1/export?format=markdown&agent=planner').set(bearer(a.key));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/markdown/);
    expect(res.text).toMatch(/^# Memories\n/);
    expect(res.text).toContain('> Atlas stores vectors in PostgreSQL with pgvector');
    expect(res.text).toMatch(/## \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · planner · /);
    expect(res.text).toContain('- **topic**: "db"');
    expect(res.text).not.toContain('Reviews need two approvals');
  });

  it('refuses an upload over IMPORT_MAX_BYTES with 413 before any job, declared or streamed, and accepts one at the limit', async () => {
    const small = await createTestApp({ IMPORT_MAX_BYTES: '400' });
    try {
      const owner = await createAccount(small.ctx);
      const line = (n: number) => JSON.stringify({ type: 'agent', id: `6f1d7c2e-0000-4000-8000-0000000001${String(n).padStart(2, '0')}`, name: `limit-${n}` });
      const fits = [line(1), line(2), line(3)].join('\n') + '\n';
      expect(Buffer.byteLength(fits)).toBeLessThanOrEqual(400);
      const over = fits + [line(4), line(5), line(6)].join('\n') + '\n';
      const send = (body: string) => small.request().post('/v1/import').set(bearer(owner.key)).set('Content-Type', 'application/x-ndjson').send(body);
      const refused = await send(over);
      expect(expectError(refused, 413, 'payload_too_large').message).toMatch(/IMPORT_MAX_BYTES \(400 bytes\)/);
      // Streamed without a declared length: refused once past the limit, the part received thrown away.
      const server = http.createServer(small.app).listen(0, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const { port } = server.address() as import('node:net').AddressInfo;
        const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/import', headers: { ...bearer(owner.key), 'Content-Type': 'application/x-ndjson', 'Transfer-Encoding': 'chunked' } }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        });
        req.on('error', reject);
        for (let i = 0; i < 20; i++) req.write(line(10 + i) + '\n');
        req.end();
      }).finally(() => new Promise((r) => server.close(r)));
      expect(chunked.status).toBe(413);
      expect(JSON.parse(chunked.body)).toMatchObject({ type: 'payload_too_large', code: 413 });
      // Neither refusal left a job behind.
      expect(Number((await small.ctx.db.knex('import_jobs').where({ account_id: owner.accountId }).count({ n: '*' }).first())!.n)).toBe(0);
      const accepted = await send(fits);
      expect(accepted.status).toBe(202);
      await small.ctx.imports!.settled(accepted.body.id);
      const job = await small.request().get(`/v1/import/jobs/${accepted.body.id}`).set(bearer(owner.key));
      expect(job.body).toMatchObject({ status: 'completed', records: { read: 3, stored: 3, failed: 0 } });
    } finally {
      await small.close();
    }
  });

  describe('the upload spool', () => {
    // This process's temporary directory, for these cases alone: what an import leaves there is the import's.
    let spoolRoot: string;
    let saved: string | undefined;
    beforeAll(() => {
      saved = process.env.TMPDIR;
      spoolRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-check-'));
      process.env.TMPDIR = spoolRoot;
    });
    afterAll(() => {
      process.env.TMPDIR = saved;
      if (saved === undefined) delete process.env.TMPDIR;
      fs.rmSync(spoolRoot, { recursive: true, force: true });
    });
    const leftovers = () => fs.readdirSync(spoolRoot);

    it('is deleted when an import finishes, fails on a broken body, or is refused', async () => {
      expect((await importInto(a.key, [{ type: 'header', format: 'ams-export', version: 1 }])).status).toBe(200);
      expect(leftovers()).toEqual([]);
      // 28 bytes: one unfinished JSON line.
      const broken = await t.request().post('/v1/import').set(bearer(a.key)).set('Content-Type', 'application/x-ndjson').send('{"type":"memory","content":');
      if (broken.status === 202) await t.ctx.imports!.settled(broken.body.id);
      expect(leftovers()).toEqual([]);
      expectError(await t.request().post('/v1/import?on_conflict=nonsense').set(bearer(a.key)).set('Content-Type', 'application/x-ndjson').send('{}\n'), 422, 'validation_error');
      expect(leftovers()).toEqual([]);
    });

    it("of a killed process is deleted by the next process to start; a live process's is kept", async () => {
      const dead = spawnSync(process.execPath, ['-e', '']).pid!;
      fs.mkdirSync(path.join(spoolRoot, `ams-import-${dead}-abc123`));
      fs.writeFileSync(path.join(spoolRoot, `ams-import-${dead}-abc123`, 'upload.ndjson'), '{}\n');
      fs.mkdirSync(path.join(spoolRoot, `ams-import-${process.ppid}-def456`));
      fs.mkdirSync(path.join(spoolRoot, 'unrelated'));
      expect(await removeOrphanSpools(spoolRoot)).toEqual([`ams-import-${dead}-abc123`]);
      expect(leftovers().sort()).toEqual([`ams-import-${process.ppid}-def456`, 'unrelated']);
      for (const name of leftovers()) fs.rmSync(path.join(spoolRoot, name), { recursive: true });
    });
  });

  it('needs an admin key and valid parameters', async () => {
    const writer = await a.keyWith(['read', 'write', 'delete']);
    expectError(await t.request().get('/v1/export').set(bearer(writer)), 403, 'authorization_error');
    expectError(await importInto(writer, [{ type: 'agent', id: '6f1d7c2e-0000-4000-8000-000000000002', name: 'x' }]), 403, 'authorization_error');
    expectError(await t.request().get('/v1/import/jobs/00000000-0000-4000-8000-000000000000').set(bearer(a.key)), 404, 'not_found');
    expectError(await t.request().get('/v1/import/jobs/not-a-uuid').set(bearer(a.key)), 404, 'not_found');
    // A job is its account's: another account's key finds nothing, a key without admin is refused.
    const accepted = await sendImport(a.key, [{ type: 'agent', id: '6f1d7c2e-0000-4000-8000-000000000003', name: 'scoped' }]);
    expect(accepted.status).toBe(202);
    await t.ctx.imports!.settled(accepted.body.id);
    const other = await createAccount(t.ctx);
    expectError(await t.request().get(`/v1/import/jobs/${accepted.body.id}`).set(bearer(other.key)), 404, 'not_found');
    expectError(await t.request().get(`/v1/import/jobs/${accepted.body.id}`).set(bearer(writer)), 403, 'authorization_error');
    expectError(await t.request().get('/v1/export'), 401, 'unauthorized');
    for (const query of ['format=pdf', 'created_after=yesterday', 'include_vectors=maybe']) {
      const res = await t.request().get(`/v1/export?${query}`).set(bearer(a.key));
      expectError(res, 422, 'validation_error');
      expect(res.body.details[0].field).toBe(query.split('=')[0]);
    }
    const bad = await importInto(a.key, [], '?on_conflict=replace');
    expectError(bad, 422, 'validation_error');
    expect(bad.body.details).toEqual([{ field: 'on_conflict', message: expect.stringMatching(/skip, overwrite/) }]);
  });
});

import { performance } from 'node:perf_hooks';
import { ApiError } from '@ams/core';
import { Db, memoriesRepository, NewMemory, sessionsRepository } from '@ams/db';
import { Embedder, toPgVector } from '@ams/embeddings';
import { MEMORY_DEFAULTS } from '@ams/vocabulary';
import { resolveAgentForWrite } from './agent-ref';
import type { Caller, MemoryDeps } from './deps';
import type { BatchInput, BatchItemInput } from './inputs';
import { buildNewMemory } from './prepare-memory';
import { actorOf } from './history';
import { storeMemories } from './store-memories';

const DEFAULT_AGENT = 'default';
const PREVIEW_CHARS = 100;

type ItemResult = {
  index: number;
  status: 'success' | 'skipped' | 'failed';
  memory_id: string | null;
  content_preview: string;
  error?: string;
};

const ms = (n: number) => Math.round(n * 100) / 100;

/**
 * Schema errors were already rejected whole (422). Here items fail one by one only for what shows
 * at run time (an unknown session, an embedding failure); a used client_id is `skipped`.
 */
export async function createBatch(deps: Pick<MemoryDeps, 'db' | 'embedder' | 'dispatch'>, caller: Caller, body: BatchInput) {
  const started = performance.now();
  const accountId = caller.accountId;
  const results: ItemResult[] = body.memories.map((m, index) => ({
    index,
    status: 'success',
    memory_id: null,
    content_preview: m.content.slice(0, PREVIEW_CHARS),
  }));
  const fail = (i: number, error: string) => Object.assign(results[i]!, { status: 'failed', error });

  // Idempotency: a client_id seen before (or earlier in this batch) is skipped, pointing at its memory.
  const used = await memoriesRepository.existingClientIds(
    deps.db,
    accountId,
    body.memories.flatMap((m) => (m.client_id ? [m.client_id] : [])),
  );
  const seen = new Set<string>();
  body.memories.forEach((m, i) => {
    if (!m.client_id) return;
    if (used.has(m.client_id)) Object.assign(results[i]!, { status: 'skipped', memory_id: used.get(m.client_id) });
    else if (seen.has(m.client_id)) Object.assign(results[i]!, { status: 'skipped' });
    seen.add(m.client_id);
  });

  const agentIds = await resolveAgents(deps.db, caller, body.memories);
  const liveSessions = await resolveSessions(deps.db, accountId, body.memories);
  body.memories.forEach((m, i) => {
    if (results[i]!.status === 'success' && m.session_id && !liveSessions.has(m.session_id)) fail(i, 'Session not found');
  });

  const pending = body.memories.map((m, i) => ({ m, i })).filter(({ i }) => results[i]!.status === 'success');
  const embedStarted = performance.now();
  const vectors = await embedAll(deps.embedder, pending.map(({ m }) => m.content), body.parallel_embeddings);
  const embeddingMs = performance.now() - embedStarted;

  const toInsert: Array<{ i: number; row: NewMemory }> = [];
  pending.forEach(({ m, i }, n) => {
    const vector = vectors[n];
    if (vector instanceof Error) return fail(i, `Embedding failed: ${vector.message}`);
    const prepared = buildNewMemory({ accountId, agentId: agentIds[i]! }, { ...MEMORY_DEFAULTS, ...m }, {
      sessionId: m.session_id ?? null,
      projectId: null,
      clientId: m.client_id ?? null,
    });
    toInsert.push({ i, row: { ...prepared, embedding: toPgVector(vector!), embeddingModel: deps.embedder.model, embeddingStatus: 'ready' } });
  });

  const dbStarted = performance.now();
  const { rows } = await storeMemories(deps, toInsert.map((t) => t.row), null, actorOf(caller));
  rows.forEach((row, n) => (results[toInsert[n]!.i]!.memory_id = row.id));
  const databaseMs = performance.now() - dbStarted;

  const count = (s: ItemResult['status']) => results.filter((r) => r.status === s).length;
  const totalMs = performance.now() - started;
  return {
    success: count('failed') === 0,
    total: results.length,
    succeeded: count('success'),
    failed: count('failed'),
    skipped: count('skipped'),
    // `success` per item and `avg_per_item_ms` are for existing clients (docs/clients.md, "Additive response members").
    results: results.map((r) => ({ ...r, success: r.status === 'success' })),
    timing: {
      total_ms: ms(totalMs),
      embedding_ms: ms(embeddingMs),
      database_ms: ms(databaseMs),
      per_memory_avg_ms: ms(totalMs / results.length),
      avg_per_item_ms: ms(totalMs / results.length),
    },
  };
}

/** Each distinct agent reference resolved once; no agent_id: the key's agent, else `default`. */
async function resolveAgents(db: Db, caller: Caller, items: BatchItemInput[]): Promise<string[]> {
  const byRef = new Map<string | undefined, string>();
  for (const ref of new Set(items.map((m) => m.agent_id))) {
    const id = await resolveAgentForWrite(db, caller, ref, { defaultName: DEFAULT_AGENT });
    if (!id) throw ApiError.invalidField('memories.agent_id', 'could not resolve an agent');
    byRef.set(ref, id);
  }
  return items.map((m) => byRef.get(m.agent_id)!);
}

async function resolveSessions(db: Db, accountId: string, items: BatchItemInput[]): Promise<Set<string>> {
  const live = new Set<string>();
  for (const id of new Set(items.flatMap((m) => (m.session_id ? [m.session_id] : [])))) {
    if (await sessionsRepository.findLive(db, accountId, id)) live.add(id);
  }
  return live;
}

/** One model call for the batch, or one per item; a failure is reported per item, never thrown. */
async function embedAll(embedder: Embedder, texts: string[], parallel: boolean): Promise<Array<Float32Array | Error>> {
  if (texts.length === 0) return [];
  if (parallel) {
    try {
      return await embedder.embed(texts);
    } catch (err) {
      return texts.map(() => err as Error);
    }
  }
  const out: Array<Float32Array | Error> = [];
  for (const text of texts) {
    try {
      out.push((await embedder.embed([text]))[0]!);
    } catch (err) {
      out.push(err as Error);
    }
  }
  return out;
}

import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Candidate, Db, EntityLinkRef, HydratedHit, memoriesRepository, MemoryRow, SearchEvent, SearchFilters, searchEventsRepository } from '@ams/db';
import { cosineSimilarity, Embedder, embedQuery, toPgVector } from '@ams/embeddings';
import { compressToQuery, splitSentences } from '@ams/text';
import { resolveAgentForRead } from './agent-ref';
import type { Caller, MemoryDeps } from './deps';
import type { SearchInput } from './inputs';
import { flatSearchCopies, presentMemorySummary } from './memory.presenter';
import { narrowSearch } from './search-narrowing';
import { entityNamesInQuery } from './query-entities';
import { reciprocalRankFusion, RRF_K } from './rank-fusion';
import { queryVectorOf, semanticLeg, semanticSearchInOneStatement } from './semantic-leg';

const DEFAULT_COMPRESS_TOKENS = 2_000;
const CHARS_PER_TOKEN = 4;

interface Scored {
  id: string;
  score: number;
  breakdown: Record<string, unknown>;
}

/** Candidates per list for hybrid: enough depth for fusion to reorder, bounded for latency. */
const hybridDepth = (limit: number) => Math.min(200, Math.max(30, limit * 3));

type SearchDeps = Pick<MemoryDeps, 'db' | 'embedder' | 'onSearch'>;

interface Recorded {
  hits: HydratedHit[];
  evaluated: number;
  queryVector?: Float32Array;
  breakdowns: Map<string, Scored['breakdown']>;
}

/** Hydrates the rows kept and records the search (one statement), for a ranking made here. */
async function recordRanked(db: Db, body: SearchInput, event: () => SearchEvent, scored: Scored[], queryVector?: Float32Array): Promise<Recorded> {
  const kept = scored.filter((s) => s.score >= body.min_score).slice(0, body.limit);
  const hits = await searchEventsRepository.recordWithResults(db, event(), kept);
  return { hits, evaluated: scored.length, queryVector, breakdowns: new Map(kept.map((s) => [s.id, s.breakdown])) };
}

/** A semantic search the index answers alone is one statement after the embed; otherwise the exact scan, then the record. */
async function semantic({ db, embedder }: SearchDeps, f: SearchFilters, body: SearchInput, event: () => SearchEvent): Promise<Recorded> {
  const { found, made } = await semanticSearchInOneStatement(db, embedder, f, body.query, body.limit, body.min_score, event);
  if (found) return { ...found, queryVector: made.queryVector, breakdowns: new Map(found.hits.map((h) => [h.id, { semantic: h.score }])) };
  const { hits, queryVector } = await semanticLeg(db, embedder, f, body.query, body.limit, made);
  return recordRanked(db, body, event, hits.map((c) => ({ ...c, breakdown: { semantic: c.score } })), queryVector);
}

/**
 * One query embedding; the keyword and graph legs run while the model embeds it, each on its own
 * connection. When they are done by the time the vector is, the index's top-k, the fusion, the
 * rows and the record are one statement (recordFused). When they are not, the index is asked at
 * once, beside them, and the fusion is here: either way nothing waits that need not.
 */
async function hybrid({ db, embedder }: SearchDeps, f: SearchFilters, body: SearchInput, event: () => SearchEvent): Promise<Recorded> {
  const depth = hybridDepth(body.limit);
  const others = Promise.all([memoriesRepository.keywordCandidates(db, f, body.query, depth), graphLeg(db, f, body.query, depth)]);
  let othersDone = false;
  others.then(
    () => (othersDone = true),
    () => (othersDone = true),
  );
  const made = await queryVectorOf(embedder, body.query);
  let indexFellShort = false;
  if (othersDone) {
    const [keyword, graph] = await others;
    const nearest = memoriesRepository.semanticTopKQuery(db, { ...f, embeddingModel: made.model }, toPgVector(made.queryVector), depth);
    const found = nearest
      ? await searchEventsRepository.recordFused(db, event(), nearest, depth, { keyword, graph }, { rrfK: RRF_K, limit: body.limit, minScore: body.min_score })
      : null;
    if (found) {
      const breakdowns = new Map(found.hits.map((h) => [h.id, { rrf: h.score, ...found.details.get(h.id) }]));
      return { hits: found.hits, evaluated: found.evaluated, queryVector: made.queryVector, breakdowns };
    }
    indexFellShort = nearest !== null;
  }
  const [{ hits: semantic }, [keyword, graph]] = await Promise.all([semanticLeg(db, embedder, f, body.query, depth, { ...made, indexFellShort }), others]);
  const fused = reciprocalRankFusion({ semantic, keyword, graph });
  const scored = fused.map((c) => ({ id: c.id, score: c.score, breakdown: { rrf: c.score, ranks: c.ranks, scores: c.scores } }));
  return recordRanked(db, body, event, scored, made.queryVector);
}

/** The entity-graph leg. Its entity recognition (CPU) waits one turn, so the model's message and the keyword query go out first. */
async function graphLeg(db: Db, f: SearchFilters, query: string, k: number): Promise<Candidate[]> {
  await nextTurn();
  return memoriesRepository.graphCandidates(db, f, entityNamesInQuery(query), k);
}

/**
 * Ranks, then hydrates the rows kept and records the search (recorded before responding, so stats
 * read right after include this search; response_ms: up to the statement that records it).
 */
async function rankAndRecord(deps: SearchDeps, f: SearchFilters, body: SearchInput, event: () => SearchEvent): Promise<Recorded> {
  if (body.search_mode === 'semantic') return semantic(deps, f, body, event);
  if (body.search_mode === 'hybrid') return hybrid(deps, f, body, event);
  const hits = await memoriesRepository.keywordCandidates(deps.db, f, body.query, body.limit);
  return recordRanked(deps.db, body, event, hits.map((c) => ({ ...c, breakdown: { keyword: c.score } })));
}

/**
 * Keeps each result's sentences most similar to the query within an equal share of the total
 * budget (max_context_tokens × 4 characters), in their original order. One embedding call.
 */
async function compress(embedder: Embedder, rows: MemoryRow[], queryVector: Float32Array, maxTokens: number): Promise<Map<string, string>> {
  const share = Math.floor((maxTokens * CHARS_PER_TOKEN) / Math.max(1, rows.length));
  const long = rows.filter((r) => r.content.length > share);
  const sentences = long.map((r) => splitSentences(r.content));
  const vectors = await embedder.embed(sentences.flat());
  const similarity = new Map<string, number>();
  let n = 0;
  for (const list of sentences) for (const s of list) similarity.set(s, cosineSimilarity(queryVector, vectors[n++]!));
  const out = new Map(rows.map((r) => [r.id, r.content]));
  for (const r of long) out.set(r.id, compressToQuery(r.content, (s) => similarity.get(s) ?? 0, share));
  return out;
}

export async function searchMemories(deps: SearchDeps, caller: Caller, body: SearchInput) {
  const started = performance.now();
  const db: Db = deps.db;
  const agent = await resolveAgentForRead(db, caller, body.agent_id);
  const narrowing = await narrowSearch(db, caller.accountId, body);
  const matchesNothing = agent === 'none' || narrowing === 'none';
  const filters: SearchFilters = {
    ...(narrowing === 'none' ? {} : narrowing),
    accountId: caller.accountId,
    agentId: agent === 'none' ? null : agent,
    tier: body.tier,
    minImportance: body.min_importance,
    includeConfidential: body.include_confidential,
    includeArchived: body.include_archived,
    metadataFilter: body.metadata_filter ?? [],
    embeddingModel: deps.embedder.model,
  };
  const event = (): SearchEvent => ({
    accountId: caller.accountId,
    agentId: agent === 'none' ? null : agent,
    query: body.query,
    searchMode: body.search_mode,
    responseMs: performance.now() - started,
  });
  const { hits, evaluated, queryVector, breakdowns }: Recorded = matchesNothing
    ? { hits: await searchEventsRepository.recordWithResults(db, event(), []), evaluated: 0, breakdowns: new Map() }
    : await rankAndRecord(deps, filters, body, event);
  const vectorForCompress = body.compress ? (queryVector ?? (await embedQuery(deps.embedder, body.query))) : undefined;
  const compressed = vectorForCompress
    ? await compress(deps.embedder, hits, vectorForCompress, body.max_context_tokens ?? DEFAULT_COMPRESS_TOKENS)
    : undefined;
  const data = hits.map(({ score: raw, entities, ...row }) => {
    const memory = presentMemorySummary(compressed ? { ...row, content: compressed.get(row.id)! } : row, distinctEntities(entities));
    const score = round(raw);
    return { memory, score, ...flatSearchCopies(memory, score), ...(body.debug ? { score_breakdown: { mode: body.search_mode, ...breakdowns.get(row.id) } } : {}) };
  });
  deps.onSearch?.(body.search_mode, (performance.now() - started) / 1000);
  return {
    object: 'search_results' as const,
    query: body.query,
    data,
    meta: {
      recalled_count: data.length,
      total_evaluated: evaluated,
      threshold: body.min_score,
      top_scores: data.map((d) => d.score).slice(0, 10),
    },
  };
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

/** One entry per entity, even when linked under several relationships (the list is best first). */
function distinctEntities(links: EntityLinkRef[]): EntityLinkRef[] {
  const out: EntityLinkRef[] = [];
  for (const l of links) {
    if (!out.some((e) => e.type === l.type && e.value === l.value)) out.push({ ...l, confidence: Math.round(Number(l.confidence) * 1e4) / 1e4 });
  }
  return out;
}

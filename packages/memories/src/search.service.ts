import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Candidate, Db, EntityLinkRef, HydratedHit, memoriesRepository, MemoryRow, SearchFilters, searchHitsRepository } from '@ams/db';
import { cosineSimilarity, Embedder, embedQuery } from '@ams/embeddings';
import { compressToQuery, splitSentences } from '@ams/text';
import { resolveAgentForRead } from './agent-ref';
import type { Caller, MemoryDeps } from './deps';
import type { SearchInput } from './inputs';
import { flatSearchCopies, presentMemorySummary } from './memory.presenter';
import { narrowSearch } from './search-narrowing';
import { entityNamesInQuery } from './query-entities';
import { reciprocalRankFusion } from './rank-fusion';
import { nearestToQuery, semanticLeg } from './semantic-leg';
import { recencyFactor, recencyOrigin } from './recency';

const DEFAULT_COMPRESS_TOKENS = 2_000;
const CHARS_PER_TOKEN = 4;

/**
 * What a result's score is made of (score_breakdown.factors): each leg's own score (null where the
 * leg did not find it or did not run), the recency multiplier (null unless recency_half_life), and
 * the memory's importance (filled in with the row; shown, not weighed).
 */
interface ScoreFactors {
  vector: number | null;
  keyword: number | null;
  graph: number | null;
  recency: number | null;
  importance?: number;
}

interface Scored {
  id: string;
  score: number;
  breakdown: Record<string, unknown>;
  factors: ScoreFactors;
  /** The row, when ranking read it already (semantic). */
  row?: HydratedHit;
}

const legFactors = (f: Partial<ScoreFactors>): ScoreFactors => ({ vector: null, keyword: null, graph: null, recency: null, ...f });

/** Candidates per list for hybrid: enough depth for fusion to reorder, bounded for latency. */
const hybridDepth = (limit: number) => Math.min(200, Math.max(30, limit * 3));

export type SearchDeps = Pick<MemoryDeps, 'db' | 'searches' | 'embedder' | 'logger' | 'commonWords' | 'onSearch'>;

interface Ranked {
  /** Best first. */
  scored: Scored[];
  queryVector?: Float32Array;
}

/** The index's top-k and the rows in one read when the index answers alone (see searchHitsRepository.nearest). */
async function semantic({ db, embedder }: SearchDeps, f: SearchFilters, body: SearchInput, k: number): Promise<Ranked> {
  const { hits, queryVector } = await nearestToQuery(embedder, f, body.query, (g, vector) => searchHitsRepository.nearest(db, g, vector, k));
  return { scored: hits.map((h) => ({ id: h.id, score: h.score, breakdown: { semantic: h.score }, factors: legFactors({ vector: h.score }), row: h })), queryVector };
}

/** The three legs at once, each on its own connection (the keyword and graph legs run while the model embeds the query), fused here. */
async function hybrid({ db, embedder, commonWords }: SearchDeps, f: SearchFilters, body: SearchInput, _k: number): Promise<Ranked> {
  const depth = hybridDepth(body.limit);
  const [{ hits: semantic, queryVector }, keyword, graph] = await Promise.all([
    semanticLeg(db, embedder, f, body.query, depth),
    memoriesRepository.keywordCandidates(db, commonWords, f, body.query, depth),
    graphLeg(db, f, body.query, depth),
  ]);
  const fused = reciprocalRankFusion({ semantic, keyword, graph });
  return {
    scored: fused.map((c) => ({
      id: c.id,
      score: c.score,
      breakdown: { rrf: c.score, ranks: c.ranks, scores: c.scores },
      factors: legFactors({ vector: c.scores.semantic ?? null, keyword: c.scores.keyword ?? null, graph: c.scores.graph ?? null }),
    })),
    queryVector,
  };
}

/** The ranking and the rows in one read (see searchHitsRepository.keyword). */
async function keyword({ db, commonWords }: SearchDeps, f: SearchFilters, body: SearchInput, k: number): Promise<Ranked> {
  const hits = await searchHitsRepository.keyword(db, commonWords, f, body.query, k);
  return { scored: hits.map((h) => ({ id: h.id, score: h.score, breakdown: { keyword: h.score }, factors: legFactors({ keyword: h.score }), row: h })) };
}

/**
 * Recency weighting (recency.ts) of every candidate, re-sorted: score × 2^(−age / half-life). The
 * times come with the rows where ranking read them, else in one read of the candidates.
 */
async function weighByRecency(db: Db, accountId: string, scored: Scored[], halfLife: number, at: Date): Promise<Scored[]> {
  const times = scored.every((c) => c.row) ? new Map(scored.map((c) => [c.id, c.row!])) : await memoriesRepository.timesOf(db, accountId, scored.map((c) => c.id));
  return scored
    .flatMap((c) => {
      const t = times.get(c.id);
      if (!t) return [];
      const factor = recencyFactor((at.getTime() - recencyOrigin(t).getTime()) / 1000, halfLife);
      return [{ ...c, score: c.score * factor, breakdown: { ...c.breakdown, base_score: c.score }, factors: { ...c.factors, recency: round(factor) } }];
    })
    .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
}

const RANKERS = { semantic, hybrid, keyword } satisfies Record<SearchInput['search_mode'], unknown>;

/** The entity-graph leg. Its entity recognition (CPU) waits one turn, so the model's message and the keyword query go out first. */
async function graphLeg(db: Db, f: SearchFilters, query: string, k: number): Promise<Candidate[]> {
  await nextTurn();
  return memoriesRepository.graphCandidates(db, f, entityNamesInQuery(query), k);
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

/**
 * One path per mode: rank (semantic: the query's vector, then the nearest rows, read with their
 * ranking; keyword: full text; hybrid: the three legs at once, then reciprocal rank fusion), keep
 * from min_score on, then read the rows kept (unless ranking read them) while the search is recorded.
 */
export async function searchMemories(deps: SearchDeps, caller: Caller, body: SearchInput) {
  const started = performance.now();
  const db: Db = deps.db;
  const agent = await resolveAgentForRead(db, caller, body.agent_id, { cached: true });
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
    includeExpired: body.include_expired,
    metadataFilter: body.metadata_filter ?? [],
    embeddingModel: deps.embedder.model,
    validity: { asOf: body.as_of, includeSuperseded: body.include_superseded },
  };
  // Recency re-ranks, so it weighs a deeper candidate list than the limit.
  const depth = body.recency_half_life ? hybridDepth(body.limit) : body.limit;
  const ranked: Ranked = matchesNothing ? { scored: [] } : await RANKERS[body.search_mode](deps, filters, body, depth);
  const { queryVector } = ranked;
  const scored = body.recency_half_life ? await weighByRecency(db, caller.accountId, ranked.scored, body.recency_half_life, body.as_of ?? new Date()) : ranked.scored;
  const kept = scored.filter((c) => c.score >= body.min_score).slice(0, body.limit);
  // Each row with the score kept for it (recency may have weighed it): side by side, not copied into one object.
  const hits = kept.every((c) => c.row)
    ? kept.map((c) => ({ row: c.row!, score: c.score }))
    : (await searchHitsRepository.hydrate(db, caller.accountId, kept)).map((row) => ({ row, score: row.score }));
  // Written after the answer, with other searches' records (SearchRecorder).
  deps.searches.record({
    accountId: caller.accountId,
    agentId: agent === 'none' ? null : agent,
    query: body.query,
    searchMode: body.search_mode,
    resultCount: kept.length,
    avgScore: kept.length ? kept.reduce((sum, c) => sum + c.score, 0) / kept.length : null,
    responseMs: performance.now() - started,
    memoryIds: kept.map((c) => c.id),
  });
  const breakdowns = new Map(kept.map((c) => [c.id, c]));
  const vectorForCompress = body.compress ? (queryVector ?? (await embedQuery(deps.embedder, body.query))) : undefined;
  const compressed = vectorForCompress
    ? await compress(deps.embedder, hits.map((h) => h.row), vectorForCompress, body.max_context_tokens ?? DEFAULT_COMPRESS_TOKENS)
    : undefined;
  const data = hits.map(({ row, score: raw }) => {
    const memory = presentMemorySummary(compressed ? { ...row, content: compressed.get(row.id)! } : row, distinctEntities(row.entities));
    const score = round(raw);
    const ranked = breakdowns.get(row.id)!;
    const breakdown = { mode: body.search_mode, ...ranked.breakdown, factors: { ...ranked.factors, importance: memory.importance } };
    return { memory, score, ...flatSearchCopies(memory, score), ...(body.debug ? { score_breakdown: breakdown } : {}) };
  });
  deps.onSearch?.(body.search_mode, (performance.now() - started) / 1000);
  return {
    object: 'search_results' as const,
    query: body.query,
    data,
    meta: {
      recalled_count: data.length,
      total_evaluated: scored.length,
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

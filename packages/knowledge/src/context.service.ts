import { performance } from 'node:perf_hooks';
import { searchMemories, type SearchDeps, type SearchMode } from '@ams/memories';
import { extractiveSummary, truncateAtWord } from '@ams/text';
import type { Caller } from './deps';

/** Validated input (the route schema types its body with it). */
export interface BuildContextInput {
  query: string;
  agent_id?: string;
  limit: number;
  threshold: number;
  max_tokens?: number;
  /** docs/clients.md, "Aliases" and "Additional endpoints": the members existing clients add. */
  project?: string;
  search_mode: SearchMode;
  exclude_memory_ids: string[];
  ai_enhanced: boolean;
  ranking_version?: string;
  /** docs/api.md, "Time-aware recall": the context as it would have been built then. */
  as_of?: Date;
  include_superseded?: boolean;
  recency_half_life?: number;
}

const CHARS_PER_TOKEN = 4;
const HEADER = 'Relevant memories:\n';

interface ContextMemory {
  content: string;
  memory_type: string;
  importance: number;
  created_at: number;
}

/** One prompt-ready line per memory: its type, importance and date, then the content. */
export function formatMemoryLine(m: ContextMemory, n: number): string {
  const date = new Date(m.created_at * 1000).toISOString().slice(0, 10);
  return `${n}. [${m.memory_type} | importance ${m.importance.toFixed(2)} | ${date}] ${m.content.replace(/\s+/g, ' ').trim()}`;
}

/**
 * Lines in ranking order while they fit the budget; the first that does not fit is cut at a word
 * boundary (when any of its content fits) and ends the block. Never more than maxChars.
 */
export function assembleContext(memories: ContextMemory[], maxChars: number | undefined): { context: string; used: number } {
  if (memories.length === 0) return { context: '', used: 0 };
  let context = HEADER.trimEnd();
  let used = 0;
  for (const [i, m] of memories.entries()) {
    const line = `\n${formatMemoryLine(m, i + 1)}`;
    if (maxChars === undefined || context.length + line.length <= maxChars) {
      context += line;
      used++;
      continue;
    }
    const prefix = `\n${formatMemoryLine({ ...m, content: '' }, i + 1)}`;
    const room = maxChars - context.length - prefix.length;
    const partial = room > 0 ? truncateAtWord(m.content.replace(/\s+/g, ' ').trim(), room) : '';
    if (partial) {
      context += prefix + partial;
      used++;
    }
    break;
  }
  if (used === 0) return { context: maxChars === undefined ? context : '', used: 0 };
  return { context, used };
}

const RANKING_VERSION = 'similarity-v1';

/**
 * Semantic recall above the threshold, formatted for prompt injection. Confidential and archived
 * memories never enter a context (docs/api.md, "Memories"), whatever the caller asks. Besides the spec's
 * members, the response carries the ones existing clients read (docs/clients.md, "Additive response members"):
 * `memories`, `token_count`, `ranking_version`, `ai_enhanced`, `latency_ms` and, with
 * `ai_enhanced`, an extractive `summary` (no LLM is called).
 */
export async function buildContext(deps: SearchDeps, auth: Caller, body: BuildContextInput) {
  const started = performance.now();
  const excluded = new Set(body.exclude_memory_ids);
  const results = await searchMemories(deps, auth, {
    query: body.query,
    agent_id: body.agent_id,
    search_mode: body.search_mode,
    // Fetch past the excluded ones so the bundle still holds `limit` memories.
    limit: Math.min(100, body.limit + excluded.size),
    min_score: body.threshold,
    include_confidential: false,
    include_archived: false,
    compress: false,
    debug: false,
    project: body.project,
    as_of: body.as_of,
    include_superseded: body.include_superseded,
    recency_half_life: body.recency_half_life,
  });
  const picked = results.data.filter((d) => !excluded.has(d.memory.id)).slice(0, body.limit);
  const memories = picked.map((d) => d.memory);
  const maxChars = body.max_tokens === undefined ? undefined : body.max_tokens * CHARS_PER_TOKEN;
  const { context, used } = assembleContext(memories, maxChars);
  const included = picked.slice(0, used);
  return {
    context,
    memories_used: used,
    total_chars: context.length,
    memories: included.map((d) => ({
      memory_id: d.memory.id,
      id: d.memory.id,
      content: d.memory.content,
      score: d.score,
      memory_type: d.memory.memory_type,
    })),
    token_count: Math.ceil(context.length / CHARS_PER_TOKEN),
    ranking_version: RANKING_VERSION,
    ai_enhanced: body.ai_enhanced ?? false,
    ...(body.ai_enhanced
      ? {
          summary: extractiveSummary(
            included.map((d) => ({ content: d.memory.content, createdAt: new Date(d.memory.created_at * 1000), score: d.score })),
          ),
        }
      : {}),
    latency_ms: Math.round(performance.now() - started),
  };
}

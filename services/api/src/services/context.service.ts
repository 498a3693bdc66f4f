import { searchMemories } from '@ams/memories';
import { truncateAtWord } from '@ams/text';
import type { AppContext, AuthContext } from '../context';

/** Validated input (the route schema types its body with it). */
export interface BuildContextInput {
  query: string;
  agent_id?: string;
  limit: number;
  threshold: number;
  max_tokens?: number;
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

/**
 * Semantic recall above the threshold, formatted for prompt injection. Confidential and archived
 * memories never enter a context (DESIGN §4), whatever the caller asks.
 */
export async function buildContext(ctx: AppContext, auth: AuthContext, body: BuildContextInput) {
  const results = await searchMemories({ db: ctx.db.knex, embedder: ctx.embedder }, auth, {
    query: body.query,
    agent_id: body.agent_id,
    search_mode: 'semantic',
    limit: body.limit,
    min_score: body.threshold,
    include_confidential: false,
    include_archived: false,
    compress: false,
    debug: false,
  });
  const memories = results.data.map((d) => d.memory);
  const maxChars = body.max_tokens === undefined ? undefined : body.max_tokens * CHARS_PER_TOKEN;
  const { context, used } = assembleContext(memories, maxChars);
  return { context, memories_used: used, total_chars: context.length };
}

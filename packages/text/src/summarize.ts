import { contentTokens } from './lexical-tokens';
import { splitSentences, truncateAtWord } from './sentences';

export interface SummaryItem {
  content: string;
  createdAt: Date;
  /** Caller-supplied relevance, e.g. similarity to the session's centroid; higher is better. */
  score: number;
}

/** One bullet never exceeds this many characters (cut at a word, with "…"). */
export const SUMMARY_LINE_MAX_CHARS = 500;

interface Candidate {
  item: number;
  sentence: number;
  time: number;
  text: string;
  centrality: number;
}

/** Invalid dates sort last instead of making the order depend on the sort algorithm. */
const timeOf = (d: Date): number => {
  const t = d.getTime();
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
};
const scoreOf = (n: number): number => (Number.isNaN(n) ? Number.NEGATIVE_INFINITY : n);

/** Cut at a word; a single giant token (a pasted blob) is cut mid-token rather than dropped. */
function shortLine(text: string): string {
  return (
    truncateAtWord(text, SUMMARY_LINE_MAX_CHARS, '…') || `${text.slice(0, SUMMARY_LINE_MAX_CHARS - 1)}…`
  );
}

/**
 * How representative a sentence is of the whole set: cosine between its token set and the
 * token frequencies of all items together.
 */
function centralityScorer(items: SummaryItem[]): (sentence: string) => number {
  const freq = new Map<string, number>();
  for (const item of items) for (const t of contentTokens(item.content)) freq.set(t, (freq.get(t) ?? 0) + 1);
  let norm = 0;
  for (const f of freq.values()) norm += f * f;
  norm = Math.sqrt(norm);
  return (sentence) => {
    const tokens = new Set(contentTokens(sentence));
    if (tokens.size === 0 || norm === 0) return 0;
    let dot = 0;
    for (const t of tokens) dot += freq.get(t) ?? 0;
    return dot / (Math.sqrt(tokens.size) * norm);
  };
}

/**
 * Extractive summary (no LLM): the best items by the caller's score contribute their most
 * representative sentence, one per item in score order, then a second sentence each, and so on,
 * up to `maxSentences`; duplicate sentences are skipped. The chosen sentences are returned in
 * time order (then their order within the item) as "- " bullet lines joined by "\n", one per
 * sentence, each on a single line. Empty input (or no text) → ''.
 */
export function extractiveSummary(items: SummaryItem[], maxSentences = 5): string {
  const limit = Math.floor(maxSentences);
  if (items.length === 0 || limit <= 0) return '';

  const centrality = centralityScorer(items);
  const perItem: Candidate[][] = items.map((item, i) =>
    splitSentences(item.content)
      .map((text, s) => ({
        item: i,
        sentence: s,
        time: timeOf(item.createdAt),
        text: text.replace(/\s+/g, ' '),
        centrality: centrality(text),
      }))
      .sort((a, b) => b.centrality - a.centrality || a.sentence - b.sentence),
  );
  const itemOrder = items
    .map((item, i) => ({ i, score: scoreOf(item.score), time: timeOf(item.createdAt) }))
    .sort((a, b) => b.score - a.score || a.time - b.time || a.i - b.i)
    .map((x) => x.i);

  const chosen: Candidate[] = [];
  const seen = new Set<string>();
  const deepest = Math.max(...perItem.map((c) => c.length));
  for (let round = 0; round < deepest && chosen.length < limit; round += 1) {
    for (const i of itemOrder) {
      const candidate = perItem[i]?.[round];
      if (!candidate) continue;
      const key = candidate.text.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      chosen.push(candidate);
      if (chosen.length >= limit) break;
    }
  }

  return chosen
    .sort((a, b) => a.time - b.time || a.item - b.item || a.sentence - b.sentence)
    .map((c) => `- ${shortLine(c.text)}`)
    .join('\n');
}

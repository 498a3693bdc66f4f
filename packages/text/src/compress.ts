import { contentTokens } from './lexical-tokens';
import { splitSentences, truncateAtWord } from './sentences';

/**
 * Shortens content to its sentences most relevant to a query, within `maxChars` characters.
 *
 * - Content that already fits is returned unchanged; `maxChars` ≤ 0 gives ''.
 * - Sentences are ranked by score (ties: earlier sentence first). When any sentence scores above
 *   0, sentences scoring 0 or less are dropped: they would spend the budget on unrelated text.
 * - The best sentence always leads; if it alone is longer than the budget it is cut at a word
 *   boundary (`truncateAtWord`, '' if its first word is too long) and returned alone.
 * - Further sentences are added greedily in rank order, skipping any that would overflow.
 * - Chosen sentences are emitted in their original order, joined by one space. The result is
 *   never longer than `maxChars`.
 *
 * The scorer is the caller's: embedding cosine similarity, or `lexicalOverlapScore(query)`.
 */
export function compressToQuery(content: string, scoreSentence: (s: string) => number, maxChars: number): string {
  const budget = Math.floor(maxChars);
  if (budget <= 0) return '';
  if (content.length <= budget) return content;

  const scored = splitSentences(content).map((text, index) => {
    const score = scoreSentence(text);
    // NaN scores rank last rather than poisoning the sort.
    return { text, index, score: Number.isNaN(score) ? Number.NEGATIVE_INFINITY : score };
  });
  const relevant = scored.some((s) => s.score > 0) ? scored.filter((s) => s.score > 0) : scored;
  const ranked = relevant.sort((a, b) => b.score - a.score || a.index - b.index);

  const best = ranked[0];
  if (!best) return '';
  if (best.text.length > budget) return truncateAtWord(best.text, budget);

  const chosen = [best];
  let used = best.text.length;
  for (const s of ranked.slice(1)) {
    const cost = s.text.length + 1; // the joining space
    if (used + cost > budget) continue;
    chosen.push(s);
    used += cost;
  }
  return chosen
    .sort((a, b) => a.index - b.index)
    .map((s) => s.text)
    .join(' ');
}

/**
 * A cheap, model-free scorer: Jaccard overlap between the query's and the sentence's content
 * tokens (lowercased, stopwords removed, light suffix stemming). 0 when either has none.
 */
export function lexicalOverlapScore(query: string): (sentence: string) => number {
  const queryTokens = new Set(contentTokens(query));
  return (sentence: string): number => {
    if (queryTokens.size === 0) return 0;
    const sentenceTokens = new Set(contentTokens(sentence));
    if (sentenceTokens.size === 0) return 0;
    let shared = 0;
    for (const t of sentenceTokens) if (queryTokens.has(t)) shared += 1;
    return shared / (queryTokens.size + sentenceTokens.size - shared);
  };
}

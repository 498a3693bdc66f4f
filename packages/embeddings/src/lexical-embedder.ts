import type { Embedder } from './embedder';
import { EMBEDDING_DIMENSIONS } from './embedder';
import { l2Normalize } from './vector';

const WORD = /[\p{L}\p{N}]+/gu;
const BOUNDARY = '\u0002';
// Words that carry no topic: counted, they make unrelated sentences look alike.
const STOPWORDS = new Set(
  'a an and are as at be by for from has have in is it its of on or that the this to was were will with'.split(' '),
);

/** FNV-1a, 32 bit: fast, dependency-free and stable across runs and machines. */
function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Deterministic feature hashing: word unigrams and bigrams plus character trigrams of each word,
 * each hashed to a signed bucket; sublinear term frequency; L2-normalised. Texts sharing words or
 * word stems land close together, so it ranks like a (weak) semantic model with no model files.
 */
export class LexicalEmbedder implements Embedder {
  readonly provider = 'lexical' as const;
  readonly model = 'lexical-hash-v1';
  readonly dimensions = EMBEDDING_DIMENSIONS;

  /** Set when this embedder stands in for a model that could not be loaded (health shows it). */
  constructor(readonly fallbackReason?: string) {}

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }

  embedOne(text: string): Float32Array {
    const counts = new Map<string, number>();
    const add = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
    const all = text.toLowerCase().match(WORD) ?? [];
    const topical = all.filter((w) => !STOPWORDS.has(w));
    const words = topical.length > 0 ? topical : all;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      add(`w:${w}`, 1);
      if (i + 1 < words.length) add(`b:${w} ${words[i + 1]}`, 0.7);
      const padded = `${BOUNDARY}${w}${BOUNDARY}`;
      for (let j = 0; j + 3 <= padded.length; j++) add(`c:${padded.slice(j, j + 3)}`, 0.4);
    }
    const v = new Float32Array(this.dimensions);
    for (const [feature, weight] of counts) {
      const h = fnv1a(feature);
      const sign = fnv1a(feature, 0x9747b28c) & 1 ? 1 : -1;
      v[h % this.dimensions]! += sign * (1 + Math.log(weight));
    }
    // A text with no word at all still gets a fixed unit vector rather than zeros (cosine of zero is undefined).
    if (counts.size === 0) v[0] = 1;
    return l2Normalize(v);
  }
}

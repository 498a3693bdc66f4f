/**
 * A model call pads every text to the longest in it, so a batch of mixed lengths spends most of
 * its time on padding (real paragraphs: 20 to 250+ tokens). Texts are sorted by length and cut into
 * buckets of at most `maxSize` whose longest is at most `stretch` times its shortest (plus `slackChars`,
 * so short texts are not split apart for a few characters). Character length stands in for token
 * length: the tokenizer would cost a second pass over the text.
 */
export interface BucketPolicy {
  maxSize: number;
  stretch: number;
  slackChars: number;
}

const DEFAULT_BUCKETS: BucketPolicy = { maxSize: 32, stretch: 1.3, slackChars: 24 };

/** Indices into `texts`, grouped into buckets; every index appears exactly once. */
export function lengthBuckets(texts: string[], policy: BucketPolicy = DEFAULT_BUCKETS): number[][] {
  const order = texts.map((t, i) => ({ i, len: t.length })).sort((a, b) => a.len - b.len || a.i - b.i);
  const buckets: number[][] = [];
  let current: number[] = [];
  let shortest = 0;
  for (const { i, len } of order) {
    if (current.length > 0 && (current.length >= policy.maxSize || len > shortest * policy.stretch + policy.slackChars)) {
      buckets.push(current);
      current = [];
    }
    if (current.length === 0) shortest = len;
    current.push(i);
  }
  if (current.length > 0) buckets.push(current);
  return buckets;
}

/** Runs `run` on each bucket of `texts` and puts the results back in input order. */
export async function inLengthBuckets<T>(texts: string[], run: (batch: string[]) => Promise<T[]>, policy: BucketPolicy = DEFAULT_BUCKETS): Promise<T[]> {
  const out = new Array<T>(texts.length);
  for (const bucket of lengthBuckets(texts, policy)) {
    const results = await run(bucket.map((i) => texts[i]!));
    bucket.forEach((i, j) => (out[i] = results[j]!));
  }
  return out;
}

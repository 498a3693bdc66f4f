import { inLengthBuckets, lengthBuckets } from '../../src';

describe('lengthBuckets', () => {
  const policy = { maxSize: 3, stretch: 1.5, slackChars: 0 };
  const texts = ['x'.repeat(100), 'x'.repeat(10), 'x'.repeat(12), 'x'.repeat(95), 'x'.repeat(11), 'x'.repeat(13), 'x'.repeat(400)];

  it('groups texts of like length, shortest first, each index once, at most maxSize a bucket', () => {
    const buckets = lengthBuckets(texts, policy);
    expect(buckets).toEqual([[1, 4, 2], [5], [3, 0], [6]]);
    expect(buckets.flat().sort()).toEqual(texts.map((_, i) => i));
  });

  it('keeps texts of the same length in input order, and gives nothing for nothing', () => {
    expect(lengthBuckets(['a', 'b', 'c'], policy)).toEqual([[0, 1, 2]]);
    expect(lengthBuckets([], policy)).toEqual([]);
  });

  it('puts every result back at its text', async () => {
    const calls: string[][] = [];
    const out = await inLengthBuckets(
      texts,
      async (batch) => {
        calls.push(batch);
        return batch.map((t) => t.length);
      },
      policy,
    );
    expect(out).toEqual(texts.map((t) => t.length));
    expect(calls).toHaveLength(4);
  });
});

import { estimateTokens, splitSentences, truncateAtWord } from '../../src/sentences';

describe('splitSentences', () => {
  it('splits on sentence ends and line breaks but not on abbreviations, versions or URLs', () => {
    const text =
      'Dr. Smith reviewed the incident at 3 p.m. today. We run v2.3 now, e.g. for staging!\n' +
      'Runbook: see https://example.com/a.b?c=1. Done';
    expect(splitSentences(text)).toEqual([
      'Dr. Smith reviewed the incident at 3 p.m. today.',
      'We run v2.3 now, e.g. for staging!',
      'Runbook: see https://example.com/a.b?c=1.',
      'Done',
    ]);
  });

  it('keeps the original text of each sentence, inner spacing included', () => {
    expect(splitSentences('Redis  is   fast.   Postgres is durable.')).toEqual(['Redis  is   fast.', 'Postgres is durable.']);
  });

  it('splits long text in order without losing sentences, and keeps a giant run-on blob whole', () => {
    const many = Array.from({ length: 400 }, (_, i) => `Memory number ${i} was stored.`).join(' ');
    const sentences = splitSentences(many);
    expect(sentences).toHaveLength(400);
    expect(sentences[399]).toBe('Memory number 399 was stored.');
    expect(splitSentences('a.b.c.d.'.repeat(2_000))).toEqual(['a.b.c.d.'.repeat(2_000)]);
  });

  it('returns the whole trimmed text when there is one sentence, [] when blank', () => {
    expect(splitSentences('  no punctuation here  ')).toEqual(['no punctuation here']);
    expect(splitSentences('')).toEqual([]);
    expect(splitSentences(' \n ')).toEqual([]);
  });
});

describe('estimateTokens', () => {
  it('counts about 4 characters a token, rounding up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('x'.repeat(1_000))).toBe(250);
  });
});

describe('truncateAtWord', () => {
  const text = 'Connection pooling fixed the latency spikes in production';

  it('returns text that fits unchanged', () => {
    expect(truncateAtWord(text, text.length)).toBe(text);
    expect(truncateAtWord('short', 100)).toBe('short');
  });

  it('never splits a word, for every budget', () => {
    const words = new Set(text.split(' '));
    for (let max = 0; max <= text.length; max += 1) {
      const cut = truncateAtWord(text, max);
      expect(cut.length).toBeLessThanOrEqual(max);
      for (const w of cut.split(' ').filter(Boolean)) expect(words.has(w)).toBe(true);
      expect(text.startsWith(cut)).toBe(true);
    }
  });

  it('cuts exactly at a word boundary when the budget ends on one', () => {
    expect(truncateAtWord(text, 'Connection pooling'.length)).toBe('Connection pooling');
    expect(truncateAtWord(text, 'Connection pooling f'.length)).toBe('Connection pooling');
  });

  it('returns "" when the first word alone is too long', () => {
    expect(truncateAtWord(text, 5)).toBe('');
    expect(truncateAtWord('https://example.com/a/very/long/path', 10)).toBe('');
  });

  it('adds no ellipsis by default; a given ellipsis fits inside the budget', () => {
    expect(truncateAtWord(text, 25)).toBe('Connection pooling fixed');
    const withEllipsis = truncateAtWord(text, 25, '…');
    expect(withEllipsis).toBe('Connection pooling fixed…');
    expect(withEllipsis.length).toBeLessThanOrEqual(25);
    expect(truncateAtWord(text, 24, '...')).toBe('Connection pooling...');
  });
});

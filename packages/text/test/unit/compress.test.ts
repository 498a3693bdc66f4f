import { compressToQuery, lexicalOverlapScore } from '../../src/compress';

const MEMORY =
  'The billing service runs on Kubernetes in eu-west-1. ' +
  'Connection pooling with PgBouncer fixed the Postgres latency spikes. ' +
  'The team lunch is on Fridays. ' +
  'Postgres replicas lag by about two seconds under peak load. ' +
  'Alice owns the on-call rotation.';

describe('compressToQuery', () => {
  const score = lexicalOverlapScore('postgres latency spikes');

  it('keeps the most relevant sentences within the budget, in their original order', () => {
    const out = compressToQuery(MEMORY, score, 140);
    expect(out).toBe(
      'Connection pooling with PgBouncer fixed the Postgres latency spikes. ' +
        'Postgres replicas lag by about two seconds under peak load.',
    );
    expect(out.length).toBeLessThanOrEqual(140);
  });

  it('emits chosen sentences in original order even when a later one scores higher', () => {
    // The second sentence scores highest; the first scores lower but still fits.
    const scores: Record<string, number> = { 'Alpha one.': 0.5, 'Beta two.': 0.9, 'Gamma three.': 0.1 };
    const out = compressToQuery('Alpha one. Beta two. Gamma three.', (s) => scores[s] ?? 0, 20);
    expect(out).toBe('Alpha one. Beta two.');
  });

  it('never exceeds the budget and fills it exactly when the sentences fit exactly', () => {
    for (let max = 0; max <= MEMORY.length + 5; max += 7) {
      expect(compressToQuery(MEMORY, score, max).length).toBeLessThanOrEqual(max);
    }
    const exact = 'Alpha one. Beta two.'.length;
    expect(compressToQuery('Alpha one. Beta two. Gamma three.', () => 1, exact)).toHaveLength(exact);
  });

  it('returns content that already fits unchanged, and "" for a zero budget', () => {
    expect(compressToQuery(MEMORY, score, MEMORY.length)).toBe(MEMORY);
    expect(compressToQuery(MEMORY, score, 0)).toBe('');
  });

  it('cuts the best sentence at a word when it alone exceeds the budget, rather than use a worse one', () => {
    const out = compressToQuery(MEMORY, score, 30);
    expect(out).toBe('Connection pooling with');
    expect(MEMORY).toContain(out);
  });

  it('does not spend the budget on sentences unrelated to the query', () => {
    const out = compressToQuery(MEMORY, lexicalOverlapScore('who is on call'), 200);
    expect(out).toBe('Alice owns the on-call rotation.');
  });

  it('is deterministic on ties: earlier sentences win, and a sentence that overflows is skipped', () => {
    expect(compressToQuery('One two. Three four. Five six.', () => 0, 18)).toBe('One two. Five six.');
    expect(compressToQuery('One two. Three four. Five six.', () => 0, 20)).toBe('One two. Three four.');
  });
});

describe('lexicalOverlapScore', () => {
  it('scores shared content words (stemmed, stopwords ignored) between 0 and 1', () => {
    const score = lexicalOverlapScore('Why are the Postgres queries slow?');
    const related = score('Slow postgres query plans were caused by missing indexes');
    const unrelated = score('The team lunch is on Fridays');
    expect(related).toBeGreaterThan(0);
    expect(related).toBeLessThanOrEqual(1);
    expect(unrelated).toBe(0);
  });

  it('gives 1 for identical content and 0 for a stopword-only query', () => {
    expect(lexicalOverlapScore('rotate api keys')('Rotate API keys')).toBe(1);
    expect(lexicalOverlapScore('what is the')('the keys')).toBe(0);
  });
});

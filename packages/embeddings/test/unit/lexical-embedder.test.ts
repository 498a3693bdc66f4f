import { cosineSimilarity, LexicalEmbedder, toPgVector, centroid } from '../../src';

describe('LexicalEmbedder', () => {
  const embedder = new LexicalEmbedder();
  const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

  it('gives 384-dimension unit vectors, the same for the same text', async () => {
    const [a, b] = await embedder.embed(['The database migration failed', 'The database migration failed']);
    expect(a).toHaveLength(384);
    expect(norm(a!)).toBeCloseTo(1, 5);
    expect(Array.from(a!)).toEqual(Array.from(b!));
  });

  it('ranks related texts above unrelated ones', async () => {
    const [q, related, unrelated] = await embedder.embed([
      'the database migration failed',
      'database migrations failing in production',
      'the user prefers dark mode in the editor',
    ]);
    expect(cosineSimilarity(q!, related!)).toBeGreaterThan(cosineSimilarity(q!, unrelated!) + 0.2);
  });

  it('gives a text without words a unit vector, not zeros', async () => {
    const [v] = await embedder.embed(['!!! ...']);
    expect(norm(v!)).toBeCloseTo(1, 5);
  });
});

describe('vector helpers', () => {
  it('writes pgvector literals and refuses non-finite components', () => {
    expect(toPgVector([0.5, -1, 0])).toBe('[0.5,-1,0]');
    expect(() => toPgVector([1, NaN])).toThrow(/component 1/);
  });

  it('computes a normalised centroid', () => {
    const c = centroid([[1, 0], [0, 1]]);
    expect(c[0]).toBeCloseTo(Math.SQRT1_2);
    expect(c[1]).toBeCloseTo(Math.SQRT1_2);
  });
});

import { reciprocalRankFusion, RRF_K } from '../../src/rank-fusion';

const list = (...ids: string[]) => ids.map((id, i) => ({ id, score: 1 - i / 10 }));

describe('reciprocalRankFusion', () => {
  it('scores first in every non-empty list as 1 and orders by fused score', () => {
    const fused = reciprocalRankFusion({ semantic: list('a', 'b'), keyword: list('a', 'c'), graph: [] });
    expect(fused[0]).toMatchObject({ id: 'a', score: 1, ranks: { semantic: 1, keyword: 1 } });
    expect(fused.map((f) => f.id)).toEqual(['a', 'b', 'c']);
    expect(fused[1]!.score).toBeCloseTo(1 / (RRF_K + 2) / (2 / (RRF_K + 1)));
  });

  it('returns nothing when every list is empty', () => {
    expect(reciprocalRankFusion({ semantic: [], keyword: [] })).toEqual([]);
  });
});

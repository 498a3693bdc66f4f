import type { Knex } from 'knex';
import { prepared } from '../driver-features';
import { MEMORY_COLUMNS, MemoryRow } from './memories.repository';

export interface EntityLinkRef {
  type: string;
  value: string;
  confidence: number;
}

export type HydratedHit = MemoryRow & { score: number; entities: EntityLinkRef[] };

type Row = MemoryRow & { score: unknown; entities: unknown };

export const searchHitsRepository = {
  /**
   * The live memories of a ranking (`hits`, best first) in its order, each with its score and its
   * linked live entities (best first); a memory deleted since it was ranked is left out. One
   * statement, a pure read; prepared (its plan does not hang on the ids given).
   */
  async hydrate(db: Knex, accountId: string, hits: Array<{ id: string; score: number }>): Promise<HydratedHit[]> {
    if (hits.length === 0) return [];
    const { rows } = await prepared(
      db.raw(
        `SELECT ${MEMORY_COLUMNS.join(', ')}, h.score,
                (SELECT coalesce(json_agg(json_build_object('type', e.entity_type, 'value', e.name, 'confidence', l.relevance_score)
                                          ORDER BY l.relevance_score DESC, e.name), '[]'::json)
                   FROM entity_memory_links l JOIN entities e ON e.account_id = l.account_id AND e.id = l.entity_id
                  WHERE l.account_id = memories.account_id AND l.memory_id = memories.id AND e.deleted_at IS NULL) AS entities
           FROM unnest(?::uuid[], ?::float8[]) WITH ORDINALITY AS h(id, score, ord)
           JOIN memories ON memories.account_id = ?::uuid AND memories.id = h.id AND memories.deleted_at IS NULL
          ORDER BY h.ord`,
        [hits.map((h) => h.id), hits.map((h) => h.score), accountId],
      ),
    );
    return (rows as Row[]).map((r) => ({
      ...r,
      score: Number(r.score),
      entities: (typeof r.entities === 'string' ? JSON.parse(r.entities) : r.entities) as EntityLinkRef[],
    }));
  },
};

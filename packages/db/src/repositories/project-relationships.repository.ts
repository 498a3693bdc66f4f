import type { Knex } from 'knex';

export interface ProjectRelationshipRow {
  account_id: string;
  id: string;
  source_project_id: string;
  target_project_id: string;
  relationship_type: string;
  metadata: Record<string, unknown>;
  created_at: Date;
}

/** An edge seen from one project: the project at its other end and which way it points. */
export interface ProjectEdge {
  id: string;
  relationship_type: string;
  metadata: Record<string, unknown>;
  created_at: Date;
  direction: 'outgoing' | 'incoming';
  other_id: string;
  other_slug: string;
  other_name: string;
}

export const projectRelationshipsRepository = {
  /** Inserts the edge, or returns the identical one already there (created false). */
  async link(
    db: Knex,
    e: { accountId: string; sourceId: string; targetId: string; relationshipType: string; metadata: Record<string, unknown> },
  ): Promise<{ row: ProjectRelationshipRow; created: boolean }> {
    const key = {
      account_id: e.accountId,
      source_project_id: e.sourceId,
      target_project_id: e.targetId,
      relationship_type: e.relationshipType,
    };
    const inserted: ProjectRelationshipRow[] = await db('project_relationships')
      .insert({ ...key, metadata: e.metadata })
      .onConflict(['account_id', 'source_project_id', 'target_project_id', 'relationship_type'])
      .ignore()
      .returning('*');
    if (inserted[0]) return { row: inserted[0], created: true };
    return { row: (await db('project_relationships').where(key).first()) as ProjectRelationshipRow, created: false };
  },

  /**
   * The project's edges whose other end is a live project, in the given directions and of the
   * given types (all types when omitted), oldest first.
   */
  async edgesOf(
    db: Knex,
    accountId: string,
    projectId: string,
    opts: { directions: Array<'outgoing' | 'incoming'>; types?: string[] },
  ): Promise<ProjectEdge[]> {
    const side = (direction: 'outgoing' | 'incoming') => {
      const [own, other] = direction === 'outgoing' ? ['source_project_id', 'target_project_id'] : ['target_project_id', 'source_project_id'];
      const q = db('project_relationships as r')
        .join('projects as o', function joinOther() {
          this.on('o.account_id', 'r.account_id').andOn('o.id', `r.${other}`);
        })
        .where({ 'r.account_id': accountId, [`r.${own}`]: projectId })
        .whereNull('o.deleted_at')
        .select(
          'r.id',
          'r.relationship_type',
          'r.metadata',
          'r.created_at',
          db.raw('? AS direction', [direction]),
          'o.id AS other_id',
          'o.slug AS other_slug',
          'o.name AS other_name',
        );
      if (opts.types) q.whereIn('r.relationship_type', opts.types);
      return q;
    };
    const [first, ...rest] = opts.directions.map(side);
    const union = rest.length ? first!.unionAll(rest) : first!;
    const rows: ProjectEdge[] = await db.select('*').from(union.as('edges')).orderBy([{ column: 'created_at' }, { column: 'id' }]);
    return rows;
  },
};

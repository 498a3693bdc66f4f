import type { AppContext, AuthContext } from './deps';
import { patternsRepository } from '@ams/db';
import { presentPattern } from './patterns.service';
import { requireProjectBySlug } from './projects.service';

/**
 * GET /v1/patterns/suggest (docs/clients.md, "Additional endpoints"): global patterns the project has not adopted yet,
 * most adopted first. `total` counts every such pattern, `data` holds the first `limit`.
 */
export async function suggestPatterns(ctx: AppContext, auth: AuthContext, q: { project: string; limit: number }) {
  const project = await requireProjectBySlug(ctx, auth.accountId, q.project);
  const { rows, total } = await patternsRepository.notAdoptedBy(ctx.db.knex, auth.accountId, project.id, q.limit);
  return { data: rows.map(presentPattern), project: project.slug, total };
}

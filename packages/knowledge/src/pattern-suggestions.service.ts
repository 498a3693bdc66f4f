import { patternsRepository } from '@ams/db';
import type { Caller, StoreDeps } from './deps';
import { presentPattern } from './patterns.service';
import { requireProjectBySlug } from './projects.service';

/**
 * GET /v1/patterns/suggest (docs/clients.md, "Additional endpoints"): global patterns the project has not adopted yet,
 * most adopted first. `total` counts every such pattern, `data` holds the first `limit`.
 */
export async function suggestPatterns(deps: StoreDeps, auth: Caller, q: { project: string; limit: number }) {
  const project = await requireProjectBySlug(deps, auth.accountId, q.project);
  const { rows, total } = await patternsRepository.notAdoptedBy(deps.db, auth.accountId, project.id, q.limit);
  return { data: rows.map(presentPattern), project: project.slug, total };
}

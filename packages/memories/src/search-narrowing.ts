import { isUuid } from '@ams/core';
import { Db, projectsRepository, SearchFilters } from '@ams/db';
import type { SearchInput } from './inputs';

type Narrowing = Pick<SearchFilters, 'projectId' | 'sessionId' | 'longTermOnly'>;

/**
 * The project, session and scope narrowing of a search (docs/clients.md, "Search narrowing"). A read naming an
 * unknown project, a session id that is not a UUID, or `scope: session` without a session
 * matches nothing ('none') rather than failing.
 */
export async function narrowSearch(
  db: Db,
  accountId: string,
  body: Pick<SearchInput, 'project' | 'session_id' | 'scope'>,
): Promise<Narrowing | 'none'> {
  const out: Narrowing = {};
  if (body.project !== undefined) {
    const project = await projectsRepository.findLiveBySlug(db, accountId, body.project);
    if (!project) return 'none';
    out.projectId = project.id;
  }
  if (body.scope === 'long-term') out.longTermOnly = true;
  const sessionFilter = body.scope === 'session' || (body.scope === undefined && body.session_id !== undefined);
  if (sessionFilter) {
    if (!body.session_id || !isUuid(body.session_id)) return 'none';
    out.sessionId = body.session_id.toLowerCase();
  }
  return out;
}

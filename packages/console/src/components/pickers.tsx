import type { AgentPage, ProjectPage } from '../api/resources';
import { useSession } from '../session';
import { useResource } from '../use-resource';

/** Agents and projects by name for filter menus (the first 100; the API pages past that). */
function useAgents() {
  const { api } = useSession();
  return useResource(() => api.get<AgentPage>('/v1/agents', { limit: 100 }), []);
}

function useProjects() {
  const { api } = useSession();
  return useResource(() => api.get<ProjectPage>('/v1/projects', { limit: 100 }), []);
}

export function AgentSelect({ value, onChange, id, anyLabel = 'All agents' }: { value: string; onChange: (v: string) => void; id?: string; anyLabel?: string }) {
  const agents = useAgents();
  return (
    <select id={id} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
      <option value="">{agents.state === 'loading' ? 'Loading agents…' : anyLabel}</option>
      {agents.data?.data.map((a) => (
        <option key={a.id} value={a.id}>
          {a.name}
        </option>
      ))}
    </select>
  );
}

export function ProjectSelect({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const projects = useProjects();
  return (
    <select value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
      <option value="">{projects.state === 'loading' ? 'Loading projects…' : 'All projects'}</option>
      {projects.data?.data.map((p) => (
        <option key={p.id} value={p.id}>
          {p.name} ({p.slug})
        </option>
      ))}
    </select>
  );
}

/** Agent names for ids in tables; falls back to a short id. */
export function useAgentNames(): (id: string | null | undefined) => string {
  const agents = useAgents();
  const names = new Map((agents.data?.data ?? []).map((a) => [a.id, a.name]));
  return (id) => (id ? names.get(id) ?? id.slice(0, 8) : '—');
}

import type { Session, SessionPage } from '../api/resources';
import { AgentSelect, useAgentNames } from '../components/pickers';
import { ago, when } from '../components/format';
import { Empty, ErrorPanel, Load } from '../components/states';
import { Field, FilterSelect, PageHeader, Section, StatusBadge } from '../components/ui';
import { href, navigate } from '../router';
import { useSession } from '../session';
import { useAction, useResource } from '../use-resource';

export function SessionsPage({ query }: { query: URLSearchParams }) {
  const { api } = useSession();
  const agentName = useAgentNames();
  const agent = query.get('agent_id') ?? '';
  const status = query.get('status') ?? '';
  const sessions = useResource(() => api.get<SessionPage>('/v1/sessions', { limit: 100, agent_id: agent, status }), [agent, status]);
  return (
    <>
      <PageHeader title="Sessions" subtitle="Work units that group an agent's memories." />
      <form class="filters" aria-label="Filter sessions" onSubmit={(e) => e.preventDefault()}>
        <Field label="Agent"><AgentSelect value={agent} onChange={(v) => navigate('/sessions', { agent_id: v, status })} /></Field>
        <Field label="Status">
          <FilterSelect value={status} any="Any status" options={['active', 'ended']} onChange={(v) => navigate('/sessions', { agent_id: agent, status: v })} />
        </Field>
      </form>
      <Load resource={sessions} label="Loading sessions…">
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No sessions">Sessions come from <code>POST /v1/sessions</code> or <code>get-or-create</code>.</Empty>
          ) : (
            <div class="table-wrap">
              <table class="table" aria-label="Sessions">
                <thead><tr><th scope="col">Title</th><th scope="col">Agent</th><th scope="col">Status</th><th scope="col" class="num">Memories</th><th scope="col">Started</th></tr></thead>
                <tbody>
                  {page.data.map((s) => (
                    <tr key={s.id}>
                      <td><a href={href(`/sessions/${s.id}`)}>{s.title || s.external_id || s.id.slice(0, 8)}</a></td>
                      <td>{agentName(s.agent_id)}</td>
                      <td><StatusBadge value={s.status} /></td>
                      <td class="num">{s.memory_count}</td>
                      <td>{ago(s.started_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Load>
    </>
  );
}

export function SessionPage({ id }: { id: string }) {
  const { api, can } = useSession();
  const agentName = useAgentNames();
  const session = useResource(() => api.get<Session>(`/v1/sessions/${encodeURIComponent(id)}`, { include_memories: true }), [id]);
  const action = useAction();
  const summarize = () => action.run(() => api.post(`/v1/sessions/${id}/summarize`)).then((r) => r && session.reload());
  const end = () => action.run(() => api.post(`/v1/sessions/${id}/end`)).then((r) => r && session.reload());
  return (
    <>
      <p class="breadcrumb"><a href={href('/sessions')}>← Sessions</a></p>
      <Load resource={session} label="Loading the session…">
        {(s) => (
          <>
            <PageHeader
              title={s.title || s.external_id || 'Session'}
              subtitle={<><StatusBadge value={s.status} /> {agentName(s.agent_id)} · started {when(s.started_at)}{s.ended_at && ` · ended ${when(s.ended_at)}`}</>}
              actions={
                can('write') && (
                  <>
                    <button type="button" class="btn" disabled={action.busy || s.memory_count === 0} onClick={summarize}>Summarize</button>
                    {s.status === 'active' && <button type="button" class="btn" disabled={action.busy} onClick={end}>End session</button>}
                  </>
                )
              }
            />
            {action.error && <ErrorPanel error={action.error} compact />}
            <Section title="Summary">
              {s.summary ? <p class="prose">{s.summary}</p> : <p class="muted">No summary yet.{can('write') && s.memory_count > 0 ? ' Summarize generates one from its memories.' : ''}</p>}
            </Section>
            <Section title={`Timeline (${s.memory_count} memor${s.memory_count === 1 ? 'y' : 'ies'})`} actions={<a href={href('/memories', { session_id: s.id })}>Open in memory list</a>}>
              {(s.memories ?? []).length === 0 ? (
                <p class="muted">No memories in this session.</p>
              ) : (
                <ol class="timeline">
                  {[...(s.memories ?? [])].sort((a, b) => a.created_at - b.created_at).map((m) => (
                    <li key={m.id}>
                      <span class="timeline-when">{when(m.created_at)}</span>
                      <a href={href(`/memories/${m.id}`)} class="timeline-text">{m.content}</a>
                    </li>
                  ))}
                </ol>
              )}
            </Section>
          </>
        )}
      </Load>
    </>
  );
}

import type { Agent, AgentPage, AgentStats, MemoryPage } from '../api/resources';
import { DayColumns, StackedBar } from '../components/charts';
import { ago, num, when } from '../components/format';
import { Empty, Load } from '../components/states';
import { PageHeader, Section, Stat } from '../components/ui';
import { href } from '../router';
import { useSession } from '../session';
import { useResource } from '../use-resource';

const DAYS = 14;
const MAX_PAGES = 5;

export function AgentsPage() {
  const { api } = useSession();
  const agents = useResource(() => api.get<AgentPage>('/v1/agents', { limit: 100 }), []);
  return (
    <>
      <PageHeader title="Agents" subtitle="Each agent is a namespace for its memories, sessions and statistics." />
      <Load resource={agents} label="Loading agents…">
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No agents yet">An agent appears when a memory names it in <code>agent_id</code>, or through <code>POST /v1/agents</code>.</Empty>
          ) : (
            <div class="table-wrap">
              <table class="table" aria-label="Agents">
                <thead>
                  <tr><th scope="col">Name</th><th scope="col" class="num">Memories</th><th scope="col" class="num">Sessions</th><th scope="col" class="num">Projects</th><th scope="col">Last active</th></tr>
                </thead>
                <tbody>
                  {page.data.map((a) => (
                    <tr key={a.id}>
                      <td><a href={href(`/agents/${a.id}`)}>{a.name}</a>{a.description && <div class="muted small">{a.description}</div>}</td>
                      <td class="num">{num(a.memory_count)}</td>
                      <td class="num">{num(a.session_count)}</td>
                      <td class="num">{num(a.project_count)}</td>
                      <td>{ago(a.last_active_at)}</td>
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

/** Memories per day over the last DAYS days, counted from the agent's newest memories (list order is newest first). */
async function perDay(api: ReturnType<typeof useSession>['api'], agentId: string) {
  const since = Date.now() / 1000 - DAYS * 86_400;
  const counts = new Map<string, number>();
  let cursor: string | null = null;
  let complete = false;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page: MemoryPage = await api.get<MemoryPage>('/v1/memories', { agent_id: agentId, limit: 100, cursor });
    for (const m of page.data) {
      if (m.created_at < since) { complete = true; break; }
      const day = new Date(m.created_at * 1000).toISOString().slice(0, 10);
      counts.set(day, (counts.get(day) ?? 0) + 1);
    }
    if (complete || !page.has_more) { complete = true; break; }
    cursor = page.next_cursor;
  }
  const days = Array.from({ length: DAYS }, (_, i) => {
    const day = new Date(Date.now() - (DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10);
    return { day: day.slice(5), count: counts.get(day) ?? 0 };
  });
  return { days, complete };
}

export function AgentPage({ id }: { id: string }) {
  const { api } = useSession();
  const data = useResource(async () => {
    const [agent, stats, activity] = await Promise.all([
      api.get<Agent>(`/v1/agents/${encodeURIComponent(id)}`),
      api.get<AgentStats>(`/v1/agents/${encodeURIComponent(id)}/stats`),
      perDay(api, id),
    ]);
    return { agent, stats, activity };
  }, [id]);
  return (
    <>
      <p class="breadcrumb"><a href={href('/agents')}>← Agents</a></p>
      <Load resource={data} label="Loading the agent…">
        {({ agent, stats, activity }) => (
          <>
            <PageHeader
              title={agent.name}
              subtitle={agent.description || `Created ${when(agent.created_at)}`}
              actions={<a class="btn" href={href('/memories', { agent_id: agent.id })}>Browse its memories</a>}
            />
            <div class="stats-row">
              <Stat label="Memories" value={num(stats.total_memories)} />
              <Stat label="This week" value={num(stats.memories_this_week)} />
              <Stat label="This month" value={num(stats.memories_this_month)} />
              <Stat label="Active sessions" value={num(stats.active_sessions)} />
              <Stat label="Entities" value={num(stats.entity_count)} />
              <Stat label="Last active" value={ago(stats.last_active)} />
            </div>
            <div class="two-col">
              <Section title={`Memories per day (last ${DAYS} days)`}>
                <DayColumns days={activity.days} label="Memories created per day" />
                {!activity.complete && <p class="muted small">Counted from the newest {MAX_PAGES * 100} memories.</p>}
              </Section>
              <Section title="Tier breakdown">
                <StackedBar
                  label="Memories by tier"
                  parts={[
                    { label: 'hot', value: stats.tier_breakdown.hot, tone: 'hot' },
                    { label: 'warm', value: stats.tier_breakdown.warm, tone: 'warm' },
                    { label: 'cold', value: stats.tier_breakdown.cold, tone: 'cold' },
                  ]}
                />
              </Section>
            </div>
            <Section title="Recall">
              <div class="stats-row">
                <Stat label="Searches" value={num(stats.recall_activity.total_searches)} />
                <Stat label="Average score" value={num(stats.recall_activity.avg_score, 3)} />
                <Stat label="Average results" value={num(stats.recall_activity.avg_results, 1)} />
                <Stat label="Average response" value={`${num(stats.search_analytics.avg_response_ms, 1)} ms`} />
              </div>
              {stats.search_analytics.top_queries.length > 0 ? (
                <>
                  <h3>Top queries</h3>
                  <ol class="plain-list">{stats.search_analytics.top_queries.map((q) => <li key={q}>{q}</li>)}</ol>
                </>
              ) : (
                <p class="muted">No searches by this agent yet.</p>
              )}
            </Section>
          </>
        )}
      </Load>
    </>
  );
}

import type { Decision, DecisionPage } from '../api/resources';
import { ago, preview, when } from '../components/format';
import { Empty, Load } from '../components/states';
import { Badge, Field, FilterSelect, PageHeader, Section, StatusBadge } from '../components/ui';
import { href, navigate } from '../router';
import { useSession } from '../session';
import { useResource } from '../use-resource';

const STATUSES = ['active', 'experimental', 'superseded', 'reverted'];
const CHAIN_MAX = 20;

export function DecisionsPage({ query }: { query: URLSearchParams }) {
  const { api } = useSession();
  const status = query.get('status') ?? '';
  const decisions = useResource(() => api.get<DecisionPage>('/v1/decisions', { limit: 100, status }), [status]);
  return (
    <>
      <PageHeader title="Decisions" subtitle="Design choices with their rationale, status and what replaced them." />
      <form class="filters" aria-label="Filter decisions" onSubmit={(e) => e.preventDefault()}>
        <Field label="Status">
          <FilterSelect value={status} any="Any status" options={STATUSES} onChange={(v) => navigate('/decisions', { status: v })} />
        </Field>
      </form>
      <Load resource={decisions} label="Loading decisions…">
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No decisions">Agents record them with <code>POST /v1/decisions</code>.</Empty>
          ) : (
            <div class="table-wrap">
              <table class="table" aria-label="Decisions">
                <thead><tr><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Project</th><th scope="col">Recorded</th></tr></thead>
                <tbody>
                  {page.data.map((d) => (
                    <tr key={d.id}>
                      <td><a href={href(`/decisions/${d.id}`)}>{d.title}</a><div class="muted small">{preview(d.rationale, 110)}</div></td>
                      <td><StatusBadge value={d.status} /></td>
                      <td>{d.project_slug ? <code>{d.project_slug}</code> : '—'}</td>
                      <td>{ago(d.created_at)}</td>
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

/** The decision, what it replaced (superseded decisions pointing at it) and what replaced it, in order. */
async function loadChain(api: ReturnType<typeof useSession>['api'], id: string) {
  const decision = await api.get<Decision>(`/v1/decisions/${encodeURIComponent(id)}`);
  const later: Decision[] = [];
  let next = decision.superseded_by;
  while (next && later.length < CHAIN_MAX) {
    const d: Decision = await api.get<Decision>(`/v1/decisions/${next}`);
    later.push(d);
    next = d.superseded_by;
  }
  const superseded = await api.get<DecisionPage>('/v1/decisions', { status: 'superseded', limit: 100 });
  const earlier: Decision[] = [];
  let target = decision.id;
  for (let i = 0; i < CHAIN_MAX; i++) {
    const prev = superseded.data.find((d) => d.superseded_by === target);
    if (!prev) break;
    earlier.unshift(prev);
    target = prev.id;
  }
  return { decision, chain: [...earlier, decision, ...later] };
}

export function DecisionPage({ id }: { id: string }) {
  const { api } = useSession();
  const data = useResource(() => loadChain(api, id), [id]);
  return (
    <>
      <p class="breadcrumb"><a href={href('/decisions')}>← Decisions</a></p>
      <Load resource={data} label="Loading the decision…">
        {({ decision, chain }) => (
          <>
            <PageHeader title={decision.title} subtitle={<><StatusBadge value={decision.status} /> recorded {when(decision.created_at)}{decision.project_slug && <> · <code>{decision.project_slug}</code></>}</>} />
            <div class="detail-grid">
              <div class="detail-main">
                <Section title="Rationale"><p class="prose">{decision.rationale}</p></Section>
                {decision.alternatives && <Section title="Alternatives considered"><p class="prose">{decision.alternatives}</p></Section>}
                {decision.tags.length > 0 && <Section title="Tags"><ul class="chips">{decision.tags.map((t) => <li class="chip" key={t}>{t}</li>)}</ul></Section>}
              </div>
              <aside class="detail-side">
                <Section title="Supersede chain">
                  {chain.length === 1 ? (
                    <p class="muted">Nothing superseded this decision, and it replaced nothing.</p>
                  ) : (
                    <ol class="chain" aria-label="Oldest first">
                      {chain.map((d) => (
                        <li key={d.id} class={d.id === decision.id ? 'current' : ''}>
                          {d.id === decision.id ? <strong>{d.title}</strong> : <a href={href(`/decisions/${d.id}`)}>{d.title}</a>}
                          <div><StatusBadge value={d.status} /> <span class="muted small">{when(d.created_at)}</span></div>
                        </li>
                      ))}
                    </ol>
                  )}
                  {decision.status === 'superseded' && !decision.superseded_by && <Badge tone="warn">superseded (no successor recorded)</Badge>}
                </Section>
              </aside>
            </div>
          </>
        )}
      </Load>
    </>
  );
}

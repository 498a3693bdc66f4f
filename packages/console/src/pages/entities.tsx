import type { EntityGraph, EntityPage } from '../api/resources';
import { preview, when } from '../components/format';
import { Empty, Load } from '../components/states';
import { Badge, Field, FilterSelect, PageHeader, Section } from '../components/ui';
import { href, navigate } from '../router';
import { useSession } from '../session';
import { useResource } from '../use-resource';

const ENTITY_TYPES = ['person', 'organization', 'technology', 'project', 'product', 'location', 'document', 'metric', 'event', 'skill', 'concept', 'other'];

export function EntitiesPage({ query }: { query: URLSearchParams }) {
  const { api } = useSession();
  const type = query.get('entity_type') ?? '';
  const entities = useResource(() => api.get<EntityPage>('/v1/entities', { limit: 100, entity_type: type }), [type]);
  return (
    <>
      <PageHeader title="Entities" subtitle="The knowledge graph: people, technologies, projects… and the memories that mention them." />
      <form class="filters" aria-label="Filter entities" onSubmit={(e) => e.preventDefault()}>
        <Field label="Type">
          <FilterSelect value={type} any="Any type" options={ENTITY_TYPES} onChange={(v) => navigate('/entities', { entity_type: v })} />
        </Field>
      </form>
      <Load resource={entities} label="Loading entities…">
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No entities">Entities are extracted from memory content, or created with <code>POST /v1/entities</code>.</Empty>
          ) : (
            <ul class="entity-grid">
              {page.data.map((e) => (
                <li key={e.id}>
                  <a class="entity-card" href={href(`/entities/${e.id}`)}>
                    <span class="entity-name">{e.name}</span>
                    <Badge>{e.entity_type}</Badge>
                    <span class="muted small">{e.memory_count} memor{e.memory_count === 1 ? 'y' : 'ies'}</span>
                  </a>
                </li>
              ))}
            </ul>
          )
        }
      </Load>
    </>
  );
}

/** The entity in the middle, its co-mentioned neighbours around it; edge width grows with shared memories. */
function GraphView({ graph }: { graph: EntityGraph }) {
  const size = 520;
  const c = size / 2;
  const nodes = graph.neighbours.slice(0, 16);
  const maxShared = Math.max(1, ...nodes.map((n) => n.shared_memories));
  const radius = c - 70;
  return (
    <svg class="graph" viewBox={`0 0 ${size} ${size}`} role="img" aria-label={`${graph.entity.name} and ${nodes.length} related entities`}>
      {nodes.map((n, i) => {
        const a = (i / nodes.length) * Math.PI * 2 - Math.PI / 2;
        const x = c + radius * Math.cos(a);
        const y = c + radius * Math.sin(a);
        return <line key={`e-${n.id}`} x1={c} y1={c} x2={x} y2={y} class="edge" stroke-width={1 + (n.shared_memories / maxShared) * 4} />;
      })}
      {nodes.map((n, i) => {
        const a = (i / nodes.length) * Math.PI * 2 - Math.PI / 2;
        const x = c + radius * Math.cos(a);
        const y = c + radius * Math.sin(a);
        return (
          <a key={n.id} href={href(`/entities/${n.id}`)} class="node-link">
            <title>{`${n.name} (${n.entity_type}), ${n.shared_memories} shared memor${n.shared_memories === 1 ? 'y' : 'ies'}`}</title>
            <circle cx={x} cy={y} r={9 + (n.shared_memories / maxShared) * 7} class={`node node-${n.entity_type}`} />
            <text x={x} y={y + 30} text-anchor="middle" class="node-label">{n.name.length > 18 ? `${n.name.slice(0, 17)}…` : n.name}</text>
          </a>
        );
      })}
      <circle cx={c} cy={c} r={30} class="node node-center" />
      <text x={c} y={c + 50} text-anchor="middle" class="node-label node-label-center">{graph.entity.name}</text>
    </svg>
  );
}

export function EntityPage({ id }: { id: string }) {
  const { api } = useSession();
  const graph = useResource(() => api.get<EntityGraph>(`/v1/entities/${encodeURIComponent(id)}/graph`), [id]);
  return (
    <>
      <p class="breadcrumb"><a href={href('/entities')}>← Entities</a></p>
      <Load resource={graph} label="Loading the graph…">
        {(g) => (
          <>
            <PageHeader title={g.entity.name} subtitle={<><Badge>{g.entity.entity_type}</Badge> {g.entity.memory_count} memories · {g.neighbours.length} related entities · since {when(g.entity.created_at)}</>} />
            <div class="two-col graph-layout">
              <Section title="Graph">
                {g.neighbours.length === 0 ? <Empty title="No related entities">No other entity is mentioned in the same memories.</Empty> : <GraphView graph={g} />}
              </Section>
              <Section title="Related entities">
                {g.neighbours.length === 0 ? (
                  <p class="muted">None yet.</p>
                ) : (
                  <table class="table compact" aria-label="Related entities">
                    <thead><tr><th scope="col">Entity</th><th scope="col">Type</th><th scope="col" class="num">Shared memories</th></tr></thead>
                    <tbody>
                      {g.neighbours.map((n) => (
                        <tr key={n.id}><td><a href={href(`/entities/${n.id}`)}>{n.name}</a></td><td>{n.entity_type}</td><td class="num">{n.shared_memories}</td></tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </Section>
            </div>
            <Section title="Linked memories">
              {g.memories.length === 0 ? (
                <p class="muted">No live memories are linked to this entity.</p>
              ) : (
                <ul class="link-list">
                  {g.memories.map((m) => (
                    <li key={`${m.memory_id}-${m.relationship ?? ''}`}>
                      <a href={href(`/memories/${m.memory_id}`)}>{preview(m.content_preview, 200)}</a>
                      <span class="muted small"> {m.relationship ? `${m.relationship.replace(/_/g, ' ')} · ` : ''}relevance {m.relevance_score.toFixed(2)}</span>
                    </li>
                  ))}
                </ul>
              )}
            </Section>
          </>
        )}
      </Load>
    </>
  );
}

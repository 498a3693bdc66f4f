import type { Pattern, PatternPage } from '../api/resources';
import { preview, when } from '../components/format';
import { Empty, Load } from '../components/states';
import { Badge, Field, FilterSelect, PageHeader, Section } from '../components/ui';
import { href, navigate } from '../router';
import { useSession } from '../session';
import { useResource } from '../use-resource';

export function PatternsPage({ query }: { query: URLSearchParams }) {
  const { api } = useSession();
  const scope = query.get('scope') ?? '';
  const patterns = useResource(() => api.get<PatternPage>('/v1/patterns', { limit: 100, scope }), [scope]);
  return (
    <>
      <PageHeader title="Patterns" subtitle="Reusable conventions, and the projects that adopted them." />
      <form class="filters" aria-label="Filter patterns" onSubmit={(e) => e.preventDefault()}>
        <Field label="Scope">
          <FilterSelect value={scope} any="Any scope" options={['global', 'project']} onChange={(v) => navigate('/patterns', { scope: v })} />
        </Field>
      </form>
      <Load resource={patterns} label="Loading patterns…">
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No patterns">Record one with <code>POST /v1/patterns</code>.</Empty>
          ) : (
            <div class="table-wrap">
              <table class="table" aria-label="Patterns">
                <thead><tr><th scope="col">Title</th><th scope="col">Category</th><th scope="col">Scope</th><th scope="col" class="num">Adopted by</th></tr></thead>
                <tbody>
                  {page.data.map((p) => (
                    <tr key={p.id}>
                      <td><a href={href(`/patterns/${p.id}`)}>{p.title}</a><div class="muted small">{preview(p.description, 110)}</div></td>
                      <td>{p.category ?? '—'}</td>
                      <td><Badge>{p.scope}</Badge></td>
                      <td class="num">{p.adoption_count}</td>
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

export function PatternPage({ id }: { id: string }) {
  const { api } = useSession();
  const pattern = useResource(() => api.get<Pattern>(`/v1/patterns/${encodeURIComponent(id)}`), [id]);
  return (
    <>
      <p class="breadcrumb"><a href={href('/patterns')}>← Patterns</a></p>
      <Load resource={pattern} label="Loading the pattern…">
        {(p) => (
          <>
            <PageHeader title={p.title} subtitle={<><Badge>{p.scope}</Badge> {p.category && <>{p.category} · </>}adopted by {p.adoption_count} project{p.adoption_count === 1 ? '' : 's'} · {when(p.created_at)}</>} />
            <Section title="Description"><p class="prose">{p.description}</p></Section>
            {p.example_code && <Section title="Example"><pre class="code" tabIndex={0}>{p.example_code}</pre></Section>}
            {p.tags.length > 0 && <Section title="Tags"><ul class="chips">{p.tags.map((t) => <li class="chip" key={t}>{t}</li>)}</ul></Section>}
            {p.source_project_slug && <p class="muted">From project <a href={href(`/projects/${p.source_project_slug}`)}>{p.source_project_slug}</a></p>}
          </>
        )}
      </Load>
    </>
  );
}

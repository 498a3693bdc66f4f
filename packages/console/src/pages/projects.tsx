import type { Project, ProjectContext, ProjectPage } from '../api/resources';
import { ago, preview } from '../components/format';
import { Empty, Load } from '../components/states';
import { JsonView, PageHeader, Section, StatusBadge } from '../components/ui';
import { href } from '../router';
import { useSession } from '../session';
import { useResource } from '../use-resource';

export function ProjectsPage() {
  const { api } = useSession();
  const projects = useResource(() => api.get<ProjectPage>('/v1/projects', { limit: 100 }), []);
  return (
    <>
      <PageHeader title="Projects" subtitle="Scopes for memories, decisions and patterns, by slug." />
      <Load resource={projects} label="Loading projects…">
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No projects">Create one with <code>POST /v1/projects</code>, or write a memory naming a <code>project</code> slug.</Empty>
          ) : (
            <div class="table-wrap">
              <table class="table" aria-label="Projects">
                <thead><tr><th scope="col">Name</th><th scope="col">Slug</th><th scope="col" class="num">Memories</th><th scope="col">Created</th></tr></thead>
                <tbody>
                  {page.data.map((p) => (
                    <tr key={p.id}>
                      <td><a href={href(`/projects/${p.slug}`)}>{p.name}</a>{p.description && <div class="muted small">{preview(p.description, 100)}</div>}</td>
                      <td><code>{p.slug}</code></td>
                      <td class="num">{p.memory_count}</td>
                      <td>{ago(p.created_at)}</td>
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

export function ProjectPage({ slug }: { slug: string }) {
  const { api } = useSession();
  const data = useResource(async () => {
    const context = await api.get<ProjectContext>(`/v1/projects/${encodeURIComponent(slug)}/context`);
    const project = await api.get<Project>(`/v1/projects/${context.project.id}`);
    return { context, project };
  }, [slug]);
  return (
    <>
      <p class="breadcrumb"><a href={href('/projects')}>← Projects</a></p>
      <Load resource={data} label="Loading the project…">
        {({ context, project }) => (
          <>
            <PageHeader
              title={project.name}
              subtitle={<><code>{project.slug}</code>{project.repo_url && <> · {project.repo_url}</>}</>}
              actions={<a class="btn" href={href('/memories', { project_id: project.id })}>Browse its memories</a>}
            />
            {project.description && <p class="prose lead">{project.description}</p>}
            <div class="two-col">
              <Section title="Active decisions">
                {context.decisions.length === 0 ? <p class="muted">None.</p> : (
                  <ul class="link-list">{context.decisions.map((d) => <li key={d.id}><a href={href(`/decisions/${d.id}`)}>{d.title}</a> <StatusBadge value={d.status} /></li>)}</ul>
                )}
              </Section>
              <Section title="Adopted patterns">
                {context.patterns.length === 0 ? <p class="muted">None.</p> : (
                  <ul class="link-list">{context.patterns.map((p) => <li key={p.id}><a href={href(`/patterns/${p.id}`)}>{p.title}</a>{p.category && <span class="muted small"> {p.category}</span>}</li>)}</ul>
                )}
              </Section>
            </div>
            <Section title="Recent memories">
              {context.memories.length === 0 ? <p class="muted">No memories in this project.</p> : (
                <ul class="link-list">{context.memories.map((m) => <li key={m.id}><a href={href(`/memories/${m.id}`)}>{preview(m.content, 180)}</a></li>)}</ul>
              )}
            </Section>
            <Section title="Stack">
              {Object.keys(project.stack ?? {}).length ? <JsonView value={project.stack} label="Stack JSON" /> : <p class="muted">Not described.</p>}
            </Section>
          </>
        )}
      </Load>
    </>
  );
}

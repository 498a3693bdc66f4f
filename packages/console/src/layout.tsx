import { useEffect, useRef } from 'preact/hooks';
import { href, useRoute } from './router';
import { useSession } from './session';
import { MemoriesPage } from './pages/memories';
import { MemoryPage } from './pages/memory';
import { SearchPage } from './pages/search';
import { AgentsPage, AgentPage } from './pages/agents';
import { SessionsPage, SessionPage } from './pages/sessions';
import { EntitiesPage, EntityPage } from './pages/entities';
import { ProjectsPage, ProjectPage } from './pages/projects';
import { DecisionsPage, DecisionPage } from './pages/decisions';
import { PatternsPage, PatternPage } from './pages/patterns';
import { OperationsPage } from './pages/operations';
import { Empty } from './components/states';

const NAV = [
  { path: '/memories', label: 'Memories' },
  { path: '/search', label: 'Search playground' },
  { path: '/agents', label: 'Agents' },
  { path: '/sessions', label: 'Sessions' },
  { path: '/entities', label: 'Entities' },
  { path: '/projects', label: 'Projects' },
  { path: '/decisions', label: 'Decisions' },
  { path: '/patterns', label: 'Patterns' },
  { path: '/operations', label: 'Operations' },
];

function Page() {
  const { segments, query } = useRoute();
  const [section, id] = segments;
  switch (section) {
    case undefined:
    case 'memories':
      return id ? <MemoryPage id={id} /> : <MemoriesPage query={query} />;
    case 'search':
      return <SearchPage />;
    case 'agents':
      return id ? <AgentPage id={id} /> : <AgentsPage />;
    case 'sessions':
      return id ? <SessionPage id={id} /> : <SessionsPage query={query} />;
    case 'entities':
      return id ? <EntityPage id={id} /> : <EntitiesPage query={query} />;
    case 'projects':
      return id ? <ProjectPage slug={id} /> : <ProjectsPage />;
    case 'decisions':
      return id ? <DecisionPage id={id} /> : <DecisionsPage query={query} />;
    case 'patterns':
      return id ? <PatternPage id={id} /> : <PatternsPage query={query} />;
    case 'operations':
      return <OperationsPage />;
    default:
      return <Empty title="No such page">Pick a section from the menu.</Empty>;
  }
}

export function Layout() {
  const { key, signOut } = useSession();
  const { path } = useRoute();
  const main = useRef<HTMLElement>(null);
  const section = `/${path.split('/').filter(Boolean)[0] ?? 'memories'}`;
  // Keyboard and screen-reader users land on the new page's content, not back at the menu.
  useEffect(() => main.current?.focus({ preventScroll: true }), [path]);
  return (
    <div class="shell">
      <a class="skip-link" href="#main" onClick={(e) => { e.preventDefault(); main.current?.focus(); }}>
        Skip to content
      </a>
      <aside class="sidebar">
        <div class="brand">
          <img src="/favicon.svg" alt="" width="28" height="28" />
          <span>Agent Memory</span>
        </div>
        <nav aria-label="Console sections">
          <ul>
            {NAV.map((n) => (
              <li key={n.path}>
                <a href={href(n.path)} aria-current={section === n.path ? 'page' : undefined} class={section === n.path ? 'active' : ''}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="key-box" aria-label="Signed-in key">
          <div class="key-scopes">
            {key.scopes.map((s) => (
              <span class="scope" key={s}>{s}</span>
            ))}
          </div>
          {key.agent_id && <div class="muted small">Bound to one agent</div>}
          <button type="button" class="btn btn-ghost btn-block" onClick={signOut}>
            Sign out
          </button>
        </div>
      </aside>
      <main id="main" ref={main} tabIndex={-1}>
        <Page />
      </main>
    </div>
  );
}

import { useEffect, useRef, useState } from 'preact/hooks';
import type { MemoryPage, MemorySummary } from '../api/resources';
import { MEMORY_TYPES, TIERS } from '../api/resources';
import { AgentSelect, ProjectSelect, useAgentNames } from '../components/pickers';
import { ago, preview } from '../components/format';
import { expiresIn } from '../components/format-expiry';
import { Empty, ErrorPanel, Loading } from '../components/states';
import { Badge, Field, FilterSelect, PageHeader, StatusBadge } from '../components/ui';
import { href, navigate } from '../router';
import { useSession } from '../session';
import { asFailure } from '../use-resource';
import type { ApiFailure } from '../api/client';

const FILTER_KEYS = ['agent_id', 'memory_type', 'tier', 'session_id', 'project_id', 'archived', 'visibility', 'embedding_status', 'expiring'] as const;
type Filters = Partial<Record<(typeof FILTER_KEYS)[number], string>>;

/** The memory list: filters live in the URL (shareable, back-button friendly); pages follow next_cursor. */
export function MemoriesPage({ query }: { query: URLSearchParams }) {
  const { api } = useSession();
  const filters: Filters = Object.fromEntries(FILTER_KEYS.map((k) => [k, query.get(k) ?? '']));
  const filterKey = FILTER_KEYS.map((k) => filters[k]).join('|');
  const [items, setItems] = useState<MemorySummary[]>([]);
  const [page, setPage] = useState<{ cursor: string | null; total: number } | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<ApiFailure | null>(null);
  const agentName = useAgentNames();
  // The filters' generation: an answer for filters changed meanwhile is dropped, so a slow
  // unfiltered answer never replaces the filtered list that came before it.
  const generation = useRef(0);

  const load = async (cursor: string | null) => {
    const mine = generation.current;
    setLoading(true);
    setError(null);
    try {
      // "Expiring within" is a window from now: the API takes its end as expires_before.
      const { expiring, ...rest } = filters;
      const expiresBefore = expiring ? Math.floor(Date.now() / 1000) + Number(expiring) : undefined;
      const res = await api.get<MemoryPage>('/v1/memories', { ...rest, limit: 25, cursor, ...(expiresBefore ? { expires_before: expiresBefore } : {}) });
      if (mine !== generation.current) return;
      setItems((prev) => (cursor ? [...prev, ...res.data] : res.data));
      setPage({ cursor: res.has_more ? res.next_cursor : null, total: res.total_count });
    } catch (err) {
      if (mine === generation.current) setError(asFailure(err));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  };
  useEffect(() => {
    generation.current++;
    setItems([]);
    setPage(null);
    void load(null);
  }, [filterKey]);

  const set = (k: keyof Filters, v: string) => navigate('/memories', { ...filters, [k]: v });
  const active = FILTER_KEYS.filter((k) => filters[k]).length;

  return (
    <>
      <PageHeader title="Memories" subtitle={page ? `${page.total.toLocaleString()} ${page.total === 1 ? `memory${active ? ' matches' : ''}` : `memories${active ? ' match' : ''}`}${active ? ' the filters' : ''}` : 'What your agents have stored'} />
      <form class="filters" aria-label="Filter memories" onSubmit={(e) => e.preventDefault()}>
        <Field label="Agent">
          <AgentSelect value={filters.agent_id ?? ''} onChange={(v) => set('agent_id', v)} />
        </Field>
        <Field label="Type">
          <FilterSelect value={filters.memory_type} any="Any type" options={MEMORY_TYPES.map((t) => [t, t.replace('_', ' ')] as const)} onChange={(v) => set('memory_type', v)} />
        </Field>
        <Field label="Tier">
          <FilterSelect value={filters.tier} any="Any tier" options={TIERS} onChange={(v) => set('tier', v)} />
        </Field>
        <Field label="Project">
          <ProjectSelect value={filters.project_id ?? ''} onChange={(v) => set('project_id', v)} />
        </Field>
        <Field label="Session ID">
          <input
            type="text"
            placeholder="session UUID"
            value={filters.session_id}
            onChange={(e) => set('session_id', (e.target as HTMLInputElement).value.trim())}
          />
        </Field>
        <Field label="Archived">
          <FilterSelect value={filters.archived} any="Archived or not" options={[['false', 'Not archived'], ['true', 'Archived only']]} onChange={(v) => set('archived', v)} />
        </Field>
        <Field label="Visibility">
          <FilterSelect value={filters.visibility} any="Any visibility" options={[['private', 'Private'], ['confidential', 'Confidential only']]} onChange={(v) => set('visibility', v)} />
        </Field>
        <Field label="Embedding">
          <FilterSelect value={filters.embedding_status} any="Any status" options={['ready', 'pending', 'processing', 'failed']} onChange={(v) => set('embedding_status', v)} />
        </Field>
        <Field label="Expires">
          <FilterSelect value={filters.expiring} any="Any time or never" options={[['3600', 'Within an hour'], ['86400', 'Within a day'], ['604800', 'Within a week']]} onChange={(v) => set('expiring', v)} />
        </Field>
        {active > 0 && (
          <button type="button" class="btn btn-ghost filters-clear" onClick={() => navigate('/memories')}>
            Clear filters
          </button>
        )}
      </form>

      {error && <ErrorPanel error={error} onRetry={() => load(items.length ? page?.cursor ?? null : null)} />}
      {!error && !loading && items.length === 0 && (
        <Empty title={active ? 'No memories match these filters' : 'No memories yet'}>
          {active ? 'Loosen or clear the filters.' : (
            <>Agents store memories with <code>POST /v1/memories</code>; they show up here.</>
          )}
        </Empty>
      )}
      {items.length > 0 && (
        <div class="table-wrap">
          <table class="table" aria-label="Memories">
            <thead>
              <tr>
                <th scope="col">Content</th>
                <th scope="col">Agent</th>
                <th scope="col">Type</th>
                <th scope="col">Tier</th>
                <th scope="col" class="num">Importance</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
              </tr>
            </thead>
            <tbody>
              {items.map((m) => (
                <tr key={m.id} data-memory-id={m.id}>
                  <td class="cell-content">
                    <a href={href(`/memories/${m.id}`)}>{preview(m.content, 140)}</a>
                    {m.archived && <Badge>archived</Badge>}
                  </td>
                  <td>{agentName(m.agent_id)}</td>
                  <td>{m.memory_type.replace('_', ' ')}</td>
                  <td><StatusBadge value={m.tier} /></td>
                  <td class="num">{m.importance.toFixed(2)}</td>
                  <td title={new Date(m.created_at * 1000).toISOString()}>{ago(m.created_at)}</td>
                  <td class={m.expires_at ? 'expiring' : 'muted'}>{expiresIn(m.expires_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {loading && <Loading label={items.length ? 'Loading more…' : 'Loading memories…'} />}
      {!loading && page?.cursor && (
        <div class="more">
          <button type="button" class="btn" onClick={() => load(page.cursor)}>
            Load more ({items.length} of {page.total.toLocaleString()} shown)
          </button>
        </div>
      )}
    </>
  );
}

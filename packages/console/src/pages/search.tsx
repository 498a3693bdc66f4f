import { useState } from 'preact/hooks';
import type { ApiFailure } from '../api/client';
import type { ScoreBreakdown, SearchResponse } from '../api/resources';
import { TIERS } from '../api/resources';
import { ScoreBars, type Bar } from '../components/charts';
import { AgentSelect, useAgentNames } from '../components/pickers';
import { preview } from '../components/format';
import { Empty, ErrorPanel, Loading } from '../components/states';
import { Badge, Field, FilterSelect, PageHeader, StatusBadge } from '../components/ui';
import { href } from '../router';
import { useSession } from '../session';
import { asFailure } from '../use-resource';

const MODES = [
  { value: 'semantic', label: 'Semantic', hint: 'vector similarity' },
  { value: 'keyword', label: 'Keyword', hint: 'full-text' },
  { value: 'hybrid', label: 'Hybrid', hint: 'vector + keyword + graph, fused by RRF' },
] as const;

const COMPONENTS = [
  { key: 'semantic', label: 'Vector', tone: 'accent' },
  { key: 'keyword', label: 'Keyword', tone: 'warm' },
  { key: 'graph', label: 'Graph', tone: 'ok' },
] as const;

/** Each component's contribution to one result, as bars: why it ranked where it did. */
function breakdownBars(b: ScoreBreakdown | undefined, score: number, maxRrf: number): Bar[] {
  if (!b) return [{ label: 'Score', value: score, max: 1 }];
  if (b.mode !== 'hybrid') {
    const c = COMPONENTS.find((x) => x.key === b.mode) ?? COMPONENTS[0];
    const value = (b.mode === 'keyword' ? b.keyword : b.semantic) ?? score;
    return [{ label: c.label, value, max: 1, tone: c.tone }];
  }
  const bars: Bar[] = COMPONENTS.map((c) => {
    const value = b.scores?.[c.key];
    const rank = b.ranks?.[c.key];
    return {
      label: c.label,
      value: value ?? 0,
      max: c.key === 'graph' ? Math.max(1, value ?? 0) : 1,
      tone: c.tone,
      detail: value === undefined ? 'not matched' : `${value.toFixed(3)} · rank ${rank ?? '—'}`,
    };
  });
  bars.push({ label: 'RRF (fused)', value: b.rrf ?? score, max: maxRrf, tone: 'dark', detail: (b.rrf ?? score).toFixed(4) });
  return bars;
}

/** Recency (the multiplier recency_half_life applied) and importance (shown, not weighed): the factors beside the legs. */
function factorBars(b: ScoreBreakdown | undefined): Bar[] {
  const f = b?.factors;
  if (!f) return [];
  const bars: Bar[] = [];
  if (f.recency !== null) {
    bars.push({ label: 'Recency', value: f.recency, max: 1, tone: 'recency', detail: `× ${f.recency.toFixed(3)} of ${(b?.base_score ?? 0).toFixed(3)}` });
  }
  if (f.importance !== undefined) bars.push({ label: 'Importance', value: f.importance, max: 1, tone: 'muted', detail: `${f.importance.toFixed(2)} · not weighed` });
  return bars;
}

const HALF_LIVES = [
  { value: '', label: 'Off' },
  { value: '3600', label: '1 hour' },
  { value: '86400', label: '1 day' },
  { value: '604800', label: '1 week' },
  { value: '2592000', label: '30 days' },
];

export function SearchPage() {
  const { api } = useSession();
  const agentName = useAgentNames();
  const [form, setForm] = useState({
    query: '',
    search_mode: 'hybrid',
    agent_id: '',
    tier: '',
    limit: '10',
    min_score: '0',
    min_importance: '',
    include_archived: false,
    include_confidential: false,
    include_superseded: false,
    as_of: '',
    recency_half_life: '',
  });
  const [result, setResult] = useState<{ res: SearchResponse; ms: number; requestId: string | null } | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof form, v: string | boolean) => setForm((f) => ({ ...f, [k]: v }));

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const body: Record<string, unknown> = {
      query: form.query,
      search_mode: form.search_mode,
      limit: Number(form.limit),
      min_score: Number(form.min_score),
      include_archived: form.include_archived,
      include_confidential: form.include_confidential,
      debug: true,
    };
    if (form.agent_id) body.agent_id = form.agent_id;
    if (form.tier) body.tier = form.tier;
    if (form.min_importance !== '') body.min_importance = Number(form.min_importance);
    if (form.include_superseded) body.include_superseded = true;
    // datetime-local is the browser's local time: sent as an ISO 8601 instant.
    if (form.as_of) body.as_of = new Date(form.as_of).toISOString();
    if (form.recency_half_life) body.recency_half_life = Number(form.recency_half_life);
    try {
      const { data, ms, requestId } = await api.timed<SearchResponse>('POST', '/v1/memories/search', body);
      setResult({ res: data, ms, requestId });
    } catch (err) {
      setResult(null);
      setError(asFailure(err));
    } finally {
      setBusy(false);
    }
  };

  const maxRrf = Math.max(1e-9, ...(result?.res.data.map((d) => d.score_breakdown?.rrf ?? d.score) ?? [0]));

  return (
    <>
      <PageHeader title="Search playground" subtitle="Run a search as an agent would, and see why each result ranked where it did." />
      <form class="card search-form" onSubmit={submit} aria-label="Search">
        <div class="search-line">
          <Field label="Query">
            <input type="search" value={form.query} onInput={(e) => set('query', (e.target as HTMLInputElement).value)} placeholder="What does the agent know about…" required />
          </Field>
          <button type="submit" class="btn btn-primary" disabled={busy || !form.query.trim()}>
            {busy ? 'Searching…' : 'Search'}
          </button>
        </div>
        <fieldset class="modes">
          <legend>Mode</legend>
          {MODES.map((m) => (
            <label key={m.value} class={`mode${form.search_mode === m.value ? ' selected' : ''}`}>
              <input type="radio" name="search_mode" value={m.value} checked={form.search_mode === m.value} onChange={() => set('search_mode', m.value)} />
              <span class="mode-label">{m.label}</span>
              <span class="mode-hint">{m.hint}</span>
            </label>
          ))}
        </fieldset>
        <div class="form-row">
          <Field label="Agent"><AgentSelect value={form.agent_id} onChange={(v) => set('agent_id', v)} /></Field>
          <Field label="Tier">
            <FilterSelect value={form.tier} any="Any tier" options={TIERS} onChange={(v) => set('tier', v)} />
          </Field>
          <Field label="Limit (1–100)">
            <input type="number" min="1" max="100" value={form.limit} onInput={(e) => set('limit', (e.target as HTMLInputElement).value)} />
          </Field>
          <Field label="Min score (0–1)">
            <input type="number" min="0" max="1" step="0.05" value={form.min_score} onInput={(e) => set('min_score', (e.target as HTMLInputElement).value)} />
          </Field>
          <Field label="Min importance">
            <input type="number" min="0" max="1" step="0.05" placeholder="any" value={form.min_importance} onInput={(e) => set('min_importance', (e.target as HTMLInputElement).value)} />
          </Field>
        </div>
        <div class="form-row">
          <Field label="As of" hint="What the agent knew to be true then (empty: now)">
            <input type="datetime-local" step="1" value={form.as_of} onInput={(e) => set('as_of', (e.target as HTMLInputElement).value)} />
          </Field>
          <Field label="Recency half-life" hint="Scores halve for every half-life of a memory's age">
            <select value={form.recency_half_life} onChange={(e) => set('recency_half_life', (e.target as HTMLSelectElement).value)}>
              {HALF_LIVES.map((h) => <option key={h.value} value={h.value}>{h.label}</option>)}
            </select>
          </Field>
        </div>
        <div class="checks">
          <label><input type="checkbox" checked={form.include_archived} onChange={(e) => set('include_archived', (e.target as HTMLInputElement).checked)} /> Include archived</label>
          <label><input type="checkbox" checked={form.include_confidential} onChange={(e) => set('include_confidential', (e.target as HTMLInputElement).checked)} /> Include confidential</label>
          <label><input type="checkbox" checked={form.include_superseded} onChange={(e) => set('include_superseded', (e.target as HTMLInputElement).checked)} /> Include superseded</label>
        </div>
      </form>

      {busy && <Loading label="Searching…" />}
      {error && <ErrorPanel error={error} />}
      {!busy && result && (
        <section aria-label="Results" class="results">
          <div class="results-meta" data-testid="search-meta">
            <strong>{result.res.data.length}</strong> result{result.res.data.length === 1 ? '' : 's'} · {result.res.meta.total_evaluated} evaluated ·{' '}
            <span data-testid="latency">{Math.round(result.ms)} ms</span> round trip
            {result.requestId && <span class="muted"> · request <code>{result.requestId.slice(0, 12)}</code></span>}
          </div>
          {result.res.data.length === 0 ? (
            <Empty title="Nothing found">Try another mode, a lower minimum score, or fewer filters. Memories still embedding are not searchable yet.</Empty>
          ) : (
            <ol class="result-list">
              {result.res.data.map((r, i) => (
                <li key={r.memory.id} class="card result" data-memory-id={r.memory.id}>
                  <div class="result-head">
                    <span class="rank">#{i + 1}</span>
                    <a href={href(`/memories/${r.memory.id}`)} class="result-title">{preview(r.memory.content, 220)}</a>
                    <span class="score" title="score">{r.score.toFixed(3)}</span>
                  </div>
                  <div class="result-body">
                    <ScoreBars label={`Score breakdown for result ${i + 1}`} bars={[...breakdownBars(r.score_breakdown, r.score, maxRrf), ...factorBars(r.score_breakdown)]} />
                    <div class="result-props">
                      <span>{agentName(r.memory.agent_id)}</span>
                      <StatusBadge value={r.memory.tier} />
                      {r.memory.superseded_by && <Badge tone="warn">superseded</Badge>}
                      <span class="muted">{r.memory.memory_type.replace('_', ' ')} · importance {r.memory.importance.toFixed(2)}</span>
                    </div>
                  </div>
                </li>
              ))}
            </ol>
          )}
        </section>
      )}
      {!busy && !result && !error && <Empty title="Run a search">Results appear here with their scores and the breakdown of each.</Empty>}
    </>
  );
}

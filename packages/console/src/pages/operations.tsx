import { useState } from 'preact/hooks';
import type { ApiKeyPage, DeliveryPage, Health, IngestionStatus, MemoryPage, NewApiKey, Scope, Webhooks } from '../api/resources';
import { SCOPES } from '../api/resources';
import { StackedBar } from '../components/charts';
import { ago, num, preview, when } from '../components/format';
import { Empty, ErrorPanel, Load } from '../components/states';
import { ConfirmButton, Field, PageHeader, Scoped, Section, Stat, StatusBadge } from '../components/ui';
import { href } from '../router';
import { useSession } from '../session';
import { useAction, useResource } from '../use-resource';
import { OAuthGrants } from './oauth-grants-section';
import { RetieringSection } from './retiering-section';
import { UsageSection } from './usage-section';

export function OperationsPage() {
  const { can } = useSession();
  return (
    <>
      <PageHeader title="Operations" subtitle="Health, usage, ingestion, webhooks, keys and connected hosts." />
      <HealthSection />
      <UsageSection />
      <IngestionSection />
      <FailedEmbeddings />
      <RetieringSection />
      <Section title="Webhooks">
        <Scoped allowed={can('admin')} why="Webhooks are managed with an admin key.">
          <Webhooks />
        </Scoped>
      </Section>
      <Section title="API keys">
        <Scoped allowed={can('admin')} why="API keys are managed with an admin key.">
          <ApiKeys />
        </Scoped>
      </Section>
      <Section title="Connected hosts (OAuth)">
        <Scoped allowed={can('admin')} why="Connected hosts are managed with an admin key.">
          <OAuthGrants />
        </Scoped>
      </Section>
    </>
  );
}

function HealthSection() {
  const { api } = useSession();
  const health = useResource(() => api.get<Health>('/v1/health'), []);
  return (
    <Section title="Health" actions={<button type="button" class="btn btn-ghost btn-small" onClick={health.reload}>Refresh</button>}>
      <Load resource={health} label="Checking health…">
        {(h) => (
          <div class="components">
            <div class="component"><span class="component-name">Service</span><StatusBadge value={h.status} /><span class="muted small">v{h.version}{h.mode && ` · ${h.mode} mode`}</span></div>
            <div class="component"><span class="component-name">Database</span><StatusBadge value={h.database} /></div>
            <div class="component"><span class="component-name">Redis</span><StatusBadge value={h.redis} /></div>
            {h.embedding && (
              <div class="component"><span class="component-name">Embedder</span><StatusBadge value="ready" /><span class="muted small">{h.embedding.provider} · {h.embedding.model} · {h.embedding.dimensions} dims</span></div>
            )}
          </div>
        )}
      </Load>
    </Section>
  );
}

function IngestionSection() {
  const { api } = useSession();
  const status = useResource(() => api.get<IngestionStatus>('/v1/ingestion'), []);
  return (
    <Section title="Ingestion" actions={<button type="button" class="btn btn-ghost btn-small" onClick={status.reload}>Refresh</button>}>
      <Load resource={status} label="Loading ingestion status…">
        {(s) => (
          <>
            <div class="stats-row">
              <Stat label="Backlog (all accounts)" value={num(s.backlog.pending + s.backlog.processing)} hint={`${s.backlog.pending} pending · ${s.backlog.processing} processing`} />
              <Stat label="Rate" value={s.rate_per_second === null ? 'idle' : `${num(s.rate_per_second, 1)}/s`} hint={`${s.batches_last_minute} batches in the last minute`} />
              <Stat label="Drains in" value={s.estimated_drain_seconds === null ? '—' : `${s.estimated_drain_seconds} s`} />
              <Stat label="Model" value={<span class="small">{s.embedder.model}</span>} hint={s.embedder.provider} />
            </div>
            <StackedBar
              label="Your memories by embedding status"
              parts={[
                { label: 'ready', value: s.memories.ready, tone: 'ok' },
                { label: 'pending', value: s.memories.pending, tone: 'info' },
                { label: 'processing', value: s.memories.processing, tone: 'accent' },
                { label: 'failed', value: s.memories.failed, tone: 'bad' },
              ]}
            />
          </>
        )}
      </Load>
    </Section>
  );
}

function FailedEmbeddings() {
  const { api, can } = useSession();
  const failed = useResource(() => api.get<MemoryPage>('/v1/memories', { embedding_status: 'failed', limit: 50 }), []);
  const action = useAction();
  const retry = (id: string) => action.run(() => api.post(`/v2/memories/${id}/retry`)).then((r) => r && failed.reload());
  return (
    <Section title="Failed embeddings">
      {action.error && <ErrorPanel error={action.error} compact />}
      <Load resource={failed} label="Loading failed embeddings…">
        {(page) =>
          page.data.length === 0 ? (
            <p class="muted">No failed embeddings. Every memory is searchable or on its way.</p>
          ) : (
            <table class="table compact" aria-label="Failed embeddings">
              <thead><tr><th scope="col">Memory</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {page.data.map((m) => (
                  <tr key={m.id}>
                    <td><a href={href(`/memories/${m.id}`)}>{preview(m.content, 120)}</a></td>
                    <td>{ago(m.created_at)}</td>
                    <td class="actions">{can('write') && <button type="button" class="btn btn-small" disabled={action.busy} onClick={() => retry(m.id)}>Retry</button>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Load>
    </Section>
  );
}

function Webhooks() {
  const { api } = useSession();
  const hooks = useResource(() => api.get<Webhooks>('/v1/webhooks'), []);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Load resource={hooks} label="Loading webhooks…">
      {(res) =>
        res.data.length === 0 ? (
          <Empty title="No webhooks">Register an HTTPS endpoint with <code>POST /v1/webhooks</code> to receive memory events.</Empty>
        ) : (
          <ul class="webhooks">
            {res.data.map((w) => (
              <li key={w.id} class="webhook">
                <div class="webhook-head">
                  <div>
                    <code class="webhook-url">{w.url}</code>
                    <div class="muted small">
                      {w.event_types.length ? w.event_types.join(', ') : 'all events'} · {w.has_secret ? 'signed' : 'unsigned'}
                      {w.description && ` · ${w.description}`}
                      {w.disabled_reason && ` · ${w.disabled_reason}`}
                    </div>
                  </div>
                  <StatusBadge value={w.enabled ? 'enabled' : 'disabled'} />
                  <button type="button" class="btn btn-small" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? null : w.id)}>
                    {open === w.id ? 'Hide deliveries' : 'Deliveries'}
                  </button>
                </div>
                {open === w.id && <Deliveries webhookId={w.id} />}
              </li>
            ))}
          </ul>
        )
      }
    </Load>
  );
}

function Deliveries({ webhookId }: { webhookId: string }) {
  const { api } = useSession();
  const deliveries = useResource(() => api.get<DeliveryPage>(`/v1/webhooks/${webhookId}/deliveries`, { limit: 50 }), [webhookId]);
  const action = useAction();
  const replay = (id: string) => action.run(() => api.post(`/v1/webhooks/${webhookId}/deliveries/${id}/retry`)).then((r) => r && deliveries.reload());
  return (
    <div class="deliveries">
      {action.error && <ErrorPanel error={action.error} compact />}
      <Load resource={deliveries} label="Loading deliveries…">
        {(page) =>
          page.data.length === 0 ? (
            <p class="muted">No deliveries yet.</p>
          ) : (
            <table class="table compact" aria-label="Deliveries">
              <thead>
                <tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th><th scope="col">Response</th><th scope="col">Next attempt</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Actions</span></th></tr>
              </thead>
              <tbody>
                {page.data.map((d) => (
                  <tr key={d.id} data-delivery-id={d.id}>
                    <td><code>{d.event_type}</code></td>
                    <td><StatusBadge value={d.status} /></td>
                    <td class="num">{d.attempts}</td>
                    <td>
                      {d.last_status_code ?? '—'}
                      {d.last_error && <div class="small error-text">{preview(d.last_error, 80)}</div>}
                      {d.response_excerpt && <div class="muted small">“{preview(d.response_excerpt, 60)}”</div>}
                    </td>
                    <td>{d.next_attempt_at ? when(d.next_attempt_at) : '—'}</td>
                    <td>{ago(d.created_at)}</td>
                    <td class="actions">{d.status === 'failed' && <button type="button" class="btn btn-small" disabled={action.busy} onClick={() => replay(d.id)}>Replay</button>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Load>
      <button type="button" class="btn btn-ghost btn-small" onClick={deliveries.reload}>Refresh deliveries</button>
    </div>
  );
}

function ApiKeys() {
  const { api, key: me } = useSession();
  const keys = useResource(() => api.get<ApiKeyPage>('/v1/api-keys', { limit: 100 }), []);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const action = useAction();

  const create = (e: Event) => {
    e.preventDefault();
    void action.run(() => api.post<NewApiKey>('/v1/api-keys', { name, scopes })).then((r) => {
      if (!r) return;
      setCreated({ name: r.name, key: r.key });
      setName('');
      keys.reload();
    });
  };
  const revoke = (id: string) => action.run(() => api.del(`/v1/api-keys/${id}`).then(() => true)).then((ok) => ok && keys.reload());
  const toggle = (s: Scope) => setScopes((cur) => (cur.includes(s) ? cur.filter((x) => x !== s) : [...cur, s]));

  return (
    <>
      {created && (
        <div class="key-reveal" role="status">
          <p><strong>Key “{created.name}” created.</strong> Copy it now: it is shown only this once.</p>
          <input type="text" readOnly value={created.key} aria-label="New API key" onFocus={(e) => (e.target as HTMLInputElement).select()} class="mono" />
          <div class="form-actions">
            <button type="button" class="btn" onClick={() => navigator.clipboard?.writeText(created.key)}>Copy</button>
            <button type="button" class="btn btn-ghost" onClick={() => setCreated(null)}>Done</button>
          </div>
        </div>
      )}
      <form class="inline-form" onSubmit={create} aria-label="Create an API key">
        <Field label="Name"><input type="text" value={name} required maxLength={255} onInput={(e) => setName((e.target as HTMLInputElement).value)} placeholder="e.g. ci-agent" /></Field>
        <fieldset class="scope-picks">
          <legend>Scopes</legend>
          {SCOPES.map((s) => (
            <label key={s}><input type="checkbox" checked={scopes.includes(s)} onChange={() => toggle(s)} /> {s}</label>
          ))}
        </fieldset>
        <button type="submit" class="btn btn-primary" disabled={action.busy || !name.trim() || scopes.length === 0}>Create key</button>
      </form>
      {action.error && <ErrorPanel error={action.error} compact />}
      <Load resource={keys} label="Loading keys…">
        {(page) => (
          <table class="table compact" aria-label="API keys">
            <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {page.data.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}{k.id === me.id && <span class="muted small"> (this console)</span>}</td>
                  <td><code>{k.key_prefix ? `${k.key_prefix}…` : '—'}</code></td>
                  <td>{k.scopes.join(', ')}</td>
                  <td>{ago(k.last_used_at)}</td>
                  <td>{k.revoked_at ? <StatusBadge value="revoked" /> : k.expires_at && Date.parse(k.expires_at) < Date.now() ? <StatusBadge value="expired" /> : <StatusBadge value="active" />}</td>
                  <td class="actions">{!k.revoked_at && k.id !== me.id && <ConfirmButton label="Revoke" confirmLabel="Revoke key" onConfirm={() => revoke(k.id)} disabled={action.busy} />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Load>
    </>
  );
}

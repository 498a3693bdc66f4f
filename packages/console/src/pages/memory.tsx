import { useState } from 'preact/hooks';
import type { Memory, MemoryPage, MemoryStatus, TierMovePage } from '../api/resources';
import { MEMORY_TYPES, TIERS } from '../api/resources';
import { useAgentNames } from '../components/pickers';
import { when } from '../components/format';
import { expiresIn } from '../components/format-expiry';
import { MemoryTimeline } from './memory-timeline';
import { ErrorPanel, Load } from '../components/states';
import { Badge, ConfirmButton, Field, JsonView, PageHeader, Section, StatusBadge } from '../components/ui';
import { href } from '../router';
import { useSession } from '../session';
import { useAction, useResource } from '../use-resource';

interface Loaded {
  memory: Memory;
  status: MemoryStatus | null;
}

/** One memory: content, metadata, entities, tier and importance, embedding status; edit, archive, delete, restore. */
export function MemoryPage({ id }: { id: string }) {
  const { api } = useSession();
  const [deleted, setDeleted] = useState(false);
  const resource = useResource<Loaded>(async () => {
    const memory = await api.get<Memory>(`/v1/memories/${encodeURIComponent(id)}`);
    const status = await api.get<MemoryStatus>(`/v2/memories/${encodeURIComponent(id)}/status`).catch(() => null);
    return { memory, status };
  }, [id]);

  if (deleted) return <DeletedMemory id={id} onRestored={() => { setDeleted(false); resource.reload(); }} />;
  return (
    <>
      <p class="breadcrumb"><a href={href('/memories')}>← Memories</a></p>
      <Load resource={resource} label="Loading the memory…">
        {(data) => <MemoryView data={data} onChanged={resource.reload} onDeleted={() => setDeleted(true)} />}
      </Load>
    </>
  );
}

function DeletedMemory({ id, onRestored }: { id: string; onRestored: () => void }) {
  const { api, can } = useSession();
  const action = useAction();
  return (
    <>
      <p class="breadcrumb"><a href={href('/memories')}>← Memories</a></p>
      <div class="state state-deleted" role="status">
        <p class="state-title">Memory deleted</p>
        <p>It is left out of lists and searches. Its data is kept, so it can be restored.</p>
        {can('write') ? (
          <button type="button" class="btn btn-primary" disabled={action.busy} onClick={() => action.run(() => api.post(`/v1/memories/${id}/restore`)).then((r) => r && onRestored())}>
            Restore memory
          </button>
        ) : (
          <p class="muted">Restoring needs a key with the write scope.</p>
        )}
        {action.error && <ErrorPanel error={action.error} compact />}
      </div>
      <MemoryTimeline id={id} onRestored={onRestored} />
    </>
  );
}

function MemoryView({ data, onChanged, onDeleted }: { data: Loaded; onChanged: () => void; onDeleted: () => void }) {
  const { api, can } = useSession();
  const { memory, status } = data;
  const [editing, setEditing] = useState(false);
  const action = useAction();
  const agentName = useAgentNames();

  const patch = (body: Record<string, unknown>) => action.run(() => api.patch(`/v1/memories/${memory.id}`, body)).then((r) => r && onChanged());
  const remove = () => action.run(() => api.del(`/v1/memories/${memory.id}`).then(() => true)).then((ok) => ok && onDeleted());
  const retry = () => action.run(() => api.post(`/v2/memories/${memory.id}/retry`)).then((r) => r && onChanged());

  return (
    <>
      <PageHeader
        title="Memory"
        subtitle={<code class="id">{memory.id}</code>}
        actions={
          <>
            {can('write') && !editing && <button type="button" class="btn" onClick={() => setEditing(true)}>Edit</button>}
            {can('write') && (
              <button type="button" class="btn" disabled={action.busy} onClick={() => patch({ archived: !memory.archived })}>
                {memory.archived ? 'Unarchive' : 'Archive'}
              </button>
            )}
            {can('delete') && <ConfirmButton label="Delete" confirmLabel="Delete memory" disabled={action.busy} onConfirm={remove} />}
          </>
        }
      />
      {action.error && <ErrorPanel error={action.error} compact />}
      <div class="detail-grid">
        <div class="detail-main">
          {editing ? (
            <EditMemory memory={memory} busy={action.busy} onCancel={() => setEditing(false)} onSave={(body) => patch(body).then(() => setEditing(false))} />
          ) : (
            <Section title={`Content · ${memory.content.length.toLocaleString()} characters`}>
              <div class="content-text" data-testid="memory-content">{memory.content}</div>
            </Section>
          )}
          <Section title="Metadata">
            {Object.keys(memory.metadata).length ? <JsonView value={memory.metadata} label="Metadata JSON" /> : <p class="muted">No metadata.</p>}
          </Section>
          <Section title="Entities">
            {memory.entities.length === 0 ? (
              <p class="muted">No entities linked.</p>
            ) : (
              <ul class="chips">
                {memory.entities.map((e) => (
                  <li key={`${e.type}:${e.value}`} class="chip">
                    <span class="chip-type">{e.type}</span> {e.value} <span class="muted">{Math.round(e.confidence * 100)}%</span>
                  </li>
                ))}
              </ul>
            )}
          </Section>
        </div>
        <aside class="detail-side">
          <Section title="Properties">
            <dl class="props">
              <dt>Agent</dt><dd><a href={href(`/agents/${memory.agent_id}`)}>{agentName(memory.agent_id)}</a></dd>
              <dt>Type</dt><dd>{memory.memory_type.replace('_', ' ')}</dd>
              <dt>Tier</dt><dd><StatusBadge value={memory.tier} /></dd>
              <dt>Importance</dt><dd>{memory.importance.toFixed(2)}</dd>
              <dt>Visibility</dt><dd><StatusBadge value={memory.visibility ?? 'private'} /></dd>
              <dt>Archived</dt><dd>{memory.archived ? 'yes' : 'no'}</dd>
              <dt>Expires</dt>
              <dd data-testid="memory-expires">
                {memory.expires_at ? <span class="expiring" title={when(memory.expires_at)}>{expiresIn(memory.expires_at)}</span> : 'never'}
                {memory.expires_at && can('write') && (
                  <button type="button" class="btn btn-small" disabled={action.busy} onClick={() => patch({ expires_at: 'never' })}>Keep</button>
                )}
              </dd>
              <dt>Session</dt><dd>{memory.session_id ? <a href={href(`/sessions/${memory.session_id}`)}>{memory.session_id.slice(0, 8)}</a> : '—'}</dd>
              <dt>Project</dt><dd>{memory.project_id ? <a href={href('/memories', { project_id: memory.project_id })}>{memory.project_id.slice(0, 8)}</a> : '—'}</dd>
            </dl>
          </Section>
          <TimeAndTier memory={memory} busy={action.busy} onPatch={patch} />
          <Section title="Embedding">
            {status ? (
              <dl class="props">
                <dt>Status</dt><dd><StatusBadge value={status.status} /></dd>
                <dt>Model</dt><dd>{status.model ?? '—'}</dd>
                {status.error && (<><dt>Error</dt><dd class="error-text">{status.error}</dd></>)}
                {status.duplicate_of && (<><dt>Duplicate of</dt><dd><a href={href(`/memories/${status.duplicate_of}`)}>{status.duplicate_of.slice(0, 8)}</a></dd></>)}
              </dl>
            ) : (
              <p class="muted">Status unavailable.</p>
            )}
            {status?.status === 'failed' && can('write') && (
              <button type="button" class="btn" disabled={action.busy} onClick={retry}>Retry embedding</button>
            )}
          </Section>
          <MemoryTimeline id={memory.id} current={memory.version} onRestored={onChanged} />
        </aside>
      </div>
    </>
  );
}

/** When the memory holds true, what it replaced or was replaced by, whether its tier is pinned, and how re-tiering moved it. */
function TimeAndTier({ memory, busy, onPatch }: { memory: Memory; busy: boolean; onPatch: (body: Record<string, unknown>) => void }) {
  const { api, can } = useSession();
  const moves = useResource(() => api.get<TierMovePage>('/v1/retiering/moves', { memory_id: memory.id, limit: '10' }), [memory.id, memory.tier]);
  return (
    <Section title="Validity and tier">
      <dl class="props">
        <dt>Valid from</dt><dd>{memory.valid_from ? when(memory.valid_from) : 'when recorded'}</dd>
        <dt>Valid until</dt><dd>{memory.valid_until ? when(memory.valid_until) : 'still true'}</dd>
        {memory.supersedes && (<><dt>Replaces</dt><dd><a href={href(`/memories/${memory.supersedes}`)}>{memory.supersedes.slice(0, 8)}</a></dd></>)}
        {memory.superseded_by && (<><dt>Superseded by</dt><dd><a href={href(`/memories/${memory.superseded_by}`)}>{memory.superseded_by.slice(0, 8)}</a></dd></>)}
        <dt>Tier</dt>
        <dd data-testid="tier-pin">
          {memory.tier_pinned ? <Badge tone="info">pinned</Badge> : <span class="muted">moved by use and age</span>}
          {can('write') && (
            <button type="button" class="btn btn-small" disabled={busy} onClick={() => onPatch({ tier_pinned: !memory.tier_pinned })}>
              {memory.tier_pinned ? 'Unpin' : 'Pin'}
            </button>
          )}
        </dd>
      </dl>
      <h3 class="small-head">Tier moves</h3>
      <Load resource={moves} label="Loading tier moves…">
        {(page) =>
          page.data.length === 0 ? (
            <p class="muted small">Re-tiering has not moved this memory.</p>
          ) : (
            <ol class="timeline" aria-label="Tier moves">
              {page.data.map((m) => (
                <li key={m.id}><span class="timeline-when">{when(m.moved_at)}</span> <StatusBadge value={m.from} /> → <StatusBadge value={m.to} /> <span class="muted">{m.reason === 'recalled' ? 'recalled often' : 'unused'}</span></li>
              ))}
            </ol>
          )
        }
      </Load>
    </Section>
  );
}

function EditMemory({ memory, busy, onSave, onCancel }: { memory: Memory; busy: boolean; onSave: (body: Record<string, unknown>) => void; onCancel: () => void }) {
  const [content, setContent] = useState(memory.content);
  const [importance, setImportance] = useState(String(memory.importance));
  const [tier, setTier] = useState<string>(memory.tier);
  const [type, setType] = useState(memory.memory_type);
  const [visibility, setVisibility] = useState(memory.visibility ?? 'private');
  const [metadata, setMetadata] = useState('');
  const [metaError, setMetaError] = useState<string | null>(null);

  const submit = (e: Event) => {
    e.preventDefault();
    const body: Record<string, unknown> = {};
    if (content !== memory.content) body.content = content;
    if (Number(importance) !== memory.importance) body.importance = Number(importance);
    if (tier !== memory.tier) body.tier = tier;
    if (type !== memory.memory_type) body.memory_type = type;
    if (visibility !== (memory.visibility ?? 'private')) body.visibility = visibility;
    if (metadata.trim()) {
      try {
        const parsed: unknown = JSON.parse(metadata);
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
        body.metadata = parsed;
      } catch {
        setMetaError('Metadata must be a JSON object, e.g. {"source": "console"}');
        return;
      }
    }
    setMetaError(null);
    if (Object.keys(body).length === 0) return onCancel();
    onSave(body);
  };

  return (
    <form class="card form" onSubmit={submit} aria-label="Edit memory">
      <Field label="Content">
        <textarea rows={8} value={content} onInput={(e) => setContent((e.target as HTMLTextAreaElement).value)} required />
      </Field>
      <div class="form-row">
        <Field label="Importance (0–1)">
          <input type="number" min="0" max="1" step="0.05" value={importance} onInput={(e) => setImportance((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label="Tier">
          <select value={tier} onChange={(e) => setTier((e.target as HTMLSelectElement).value)}>
            {TIERS.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </Field>
        <Field label="Type">
          <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
            {MEMORY_TYPES.map((t) => <option key={t} value={t}>{t.replace('_', ' ')}</option>)}
          </select>
        </Field>
        <Field label="Visibility">
          <select value={visibility} onChange={(e) => setVisibility((e.target as HTMLSelectElement).value as 'private' | 'confidential')}>
            <option value="private">private</option>
            <option value="confidential">confidential</option>
          </select>
        </Field>
      </div>
      <Field label="Merge into metadata (JSON object)" hint="Keys given here are added or replaced; other keys stay.">
        <textarea rows={3} class="mono" placeholder='{"reviewed": true}' value={metadata} onInput={(e) => setMetadata((e.target as HTMLTextAreaElement).value)} aria-invalid={metaError ? 'true' : undefined} />
      </Field>
      {metaError && <p class="field-error" role="alert">{metaError}</p>}
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>{busy ? 'Saving…' : 'Save changes'}</button>
        <button type="button" class="btn btn-ghost" onClick={onCancel}>Cancel</button>
      </div>
      {memory.archived && <Badge>archived</Badge>}
    </form>
  );
}

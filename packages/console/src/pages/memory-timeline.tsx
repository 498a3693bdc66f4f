import type { MemoryVersion, MemoryVersionPage } from '../api/resources';
import { when } from '../components/format';
import { ErrorPanel, Load } from '../components/states';
import { Section } from '../components/ui';
import { useSession } from '../session';
import { useAction, useResource } from '../use-resource';

const CHANGE_LABELS: Record<string, string> = {
  create: 'Created',
  update: 'Updated',
  delete: 'Deleted',
  restore: 'Restored',
  restore_version: 'Restored a version',
  embed: 'Embedded',
  're-embed': 'Re-embedded',
  expire: 'Expired',
  import: 'Imported',
  supersede: 'Superseded',
  retier: 'Re-tiered',
};

/** Members shown as dates; `embedding` (no values: the vector is never shown) is named, not diffed. */
const TIME_FIELDS = new Set(['expires_at', 'valid_from', 'valid_until']);

function show(field: string, value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (TIME_FIELDS.has(field) && typeof value === 'number') return when(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

function VersionDiff({ v }: { v: MemoryVersion }) {
  if (v.change === 'create') return null;
  const fields = v.changed_fields.filter((f) => f in v.after || f in v.before);
  if (fields.length === 0) return <p class="muted small">{v.changed_fields.join(', ')}</p>;
  return (
    <dl class="diff">
      {fields.map((f) => (
        <div key={f} class="diff-row">
          <dt>{f.replace('_', ' ')}</dt>
          <dd>
            <del>{show(f, v.before[f])}</del> <span aria-hidden="true">→</span> <ins>{show(f, v.after[f])}</ins>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * A memory's timeline: every version, newest first, with what changed (before → after), who and
 * when; an older version can be restored (a new version). Also shown for a deleted memory.
 */
export function MemoryTimeline({ id, current, onRestored }: { id: string; current?: number; onRestored: () => void }) {
  const { api, can } = useSession();
  const action = useAction();
  const resource = useResource(() => api.get<MemoryVersionPage>(`/v1/memories/${encodeURIComponent(id)}/history`, { limit: 20 }), [id, current]);
  const restore = (version: number) => action.run(() => api.post(`/v1/memories/${id}/history/${version}/restore`)).then((r) => r && onRestored());
  return (
    <Section title="History">
      {action.error && <ErrorPanel error={action.error} compact />}
      <Load resource={resource} label="Loading the history…">
        {(page) => (
          <>
            <ol class="timeline" aria-label="Memory history">
              {page.data.map((v) => (
                <li key={v.version} data-version={v.version}>
                  <span class="timeline-when">{when(v.created_at)}</span>
                  <strong>v{v.version}</strong> {CHANGE_LABELS[v.change] ?? v.change}
                  <span class="muted small"> · {v.actor.type === 'system' ? 'by the service' : `key ${v.actor.key_id?.slice(0, 8)}`}</span>
                  <VersionDiff v={v} />
                  {can('write') && v.version !== (current ?? page.data[0]?.version) && (
                    <button type="button" class="btn btn-small" disabled={action.busy} onClick={() => restore(v.version)}>
                      Restore v{v.version}
                    </button>
                  )}
                </li>
              ))}
            </ol>
            {page.has_more && <p class="muted small">Showing the latest {page.data.length} of {page.total_count} versions.</p>}
          </>
        )}
      </Load>
    </Section>
  );
}

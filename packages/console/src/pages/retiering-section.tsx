import type { RetieringSettings, TierMovePage } from '../api/resources';
import { ago, when } from '../components/format';
import { ErrorPanel, Load } from '../components/states';
import { Section, Stat, StatusBadge } from '../components/ui';
import { href } from '../router';
import { useSession } from '../session';
import { useAction, useResource } from '../use-resource';

/**
 * Re-tiering by use and age (docs/api.md, "Re-tiering"): the account's rules, on or off (admin),
 * a run on demand, and the latest tier moves with why each memory moved.
 */
export function RetieringSection() {
  const { api, can } = useSession();
  const settings = useResource(() => api.get<RetieringSettings>('/v1/retiering'), []);
  const moves = useResource(() => api.get<TierMovePage>('/v1/retiering/moves', { limit: '15' }), []);
  const action = useAction();
  const reload = () => {
    settings.reload();
    moves.reload();
  };
  const toggle = (enabled: boolean) => action.run(() => api.patch('/v1/retiering', { enabled })).then((r) => r && reload());
  const runNow = () => action.run(() => api.post('/v1/retiering/run')).then((r) => r && reload());

  return (
    <Section
      title="Re-tiering"
      actions={
        can('admin') ? (
          <button type="button" class="btn btn-small" disabled={action.busy} onClick={runNow}>Run now</button>
        ) : undefined
      }
    >
      {action.error && <ErrorPanel error={action.error} compact />}
      <Load resource={settings} label="Loading re-tiering…">
        {(s) => (
          <>
            <div class="stats-row">
              <Stat label="Re-tiering" value={<StatusBadge value={s.enabled ? 'enabled' : 'disabled'} />} hint={s.interval_seconds ? `every ${Math.round(s.interval_seconds / 60)} min` : 'not scheduled here'} />
              <Stat label="Promote" value={`${s.promote_recalls} recalls`} hint={`within ~${s.promote_window_days} days`} />
              <Stat label="Demote" value={`${s.demote_after_days} days unused`} hint="× (1 + importance)" />
              <Stat label="Last run" value={s.last_run_at ? ago(s.last_run_at) : 'never'} hint={s.last_run_moved === null ? undefined : `${s.last_run_moved} moved`} />
            </div>
            <p class="muted small">Recent recall promotes a memory one tier; long disuse demotes it one tier (importance ≥ 0.8 stays at least warm). A tier set by a user is pinned and never moves.</p>
            {can('admin') && (
              <label class="checks">
                <input type="checkbox" checked={s.enabled} disabled={action.busy} onChange={(e) => toggle((e.target as HTMLInputElement).checked)} /> Re-tier this account on schedule
              </label>
            )}
          </>
        )}
      </Load>
      <h3 class="small-head">Latest tier moves</h3>
      <Load resource={moves} label="Loading tier moves…">
        {(page) =>
          page.data.length === 0 ? (
            <p class="muted small">No memory has moved yet.</p>
          ) : (
            <table class="table" aria-label="Tier moves">
              <thead><tr><th>When</th><th>Memory</th><th>Move</th><th>Why</th></tr></thead>
              <tbody>
                {page.data.map((m) => (
                  <tr key={m.id}>
                    <td>{when(m.moved_at)}</td>
                    <td><a href={href(`/memories/${m.memory_id}`)}><code>{m.memory_id.slice(0, 8)}</code></a></td>
                    <td><StatusBadge value={m.from} /> → <StatusBadge value={m.to} /></td>
                    <td>{m.reason === 'recalled' ? 'recalled often' : 'unused'}</td>
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

import type { AccountUsage } from '../api/resources';
import { ScoreBars, type Bar } from '../components/charts';
import { num } from '../components/format';
import { Section, Stat } from '../components/ui';
import { Load } from '../components/states';
import { useSession } from '../session';
import { useResource } from '../use-resource';

const bytes = (n: number) => (n >= 1024 ** 3 ? `${num(n / 1024 ** 3, 1)} GiB` : n >= 1024 ** 2 ? `${num(n / 1024 ** 2, 1)} MiB` : n >= 1024 ? `${num(n / 1024, 1)} KiB` : `${n} B`);

/** A bar of `used` against `limit`: full and red near the limit; empty, "unlimited", without one. */
function against(label: string, used: number, limit: number | null, show: (n: number) => string = (n) => num(n)): Bar {
  if (!limit) return { label, value: 0, max: 0, detail: `${show(used)} · unlimited`, tone: 'muted' };
  const share = used / limit;
  return { label, value: used, max: limit, detail: `${show(used)} of ${show(limit)} (${Math.round(share * 100)}%)`, tone: share >= 0.9 ? 'bad' : share >= 0.7 ? 'warm' : 'ok' };
}

/** The account's usage against its limits (GET /v1/usage; docs/api.md, "Account limits and usage"). */
export function UsageSection() {
  const { api } = useSession();
  const usage = useResource(() => api.get<AccountUsage>('/v1/usage'), []);
  return (
    <Section title="Usage and limits" actions={<button type="button" class="btn btn-ghost btn-small" onClick={usage.reload}>Refresh</button>}>
      <Load resource={usage} label="Loading usage…">
        {(u) => (
          <>
            <ScoreBars
              label="Usage against limits"
              class="usage-bars"
              bars={[
                against('Memories', u.memories.used, u.memories.limit),
                against('Storage', u.storage_bytes.used, u.storage_bytes.limit, bytes),
                against('Searches today', u.searches.today, u.searches.limit_per_day),
                against('Embeddings today', u.embeddings.today, u.embeddings.limit_per_day),
              ]}
            />
            <div class="stats-row">
              <Stat label="Requests today" value={num(u.requests.today)} hint={u.requests.limit_per_minute ? `at most ${num(u.requests.limit_per_minute)} a minute` : 'no per-minute limit'} />
              <Stat label={`This month (${u.month})`} value={num(u.requests.this_month)} hint={`${num(u.searches.this_month)} searches · ${num(u.embeddings.this_month)} embeddings`} />
              <Stat label="Vectors" value={num(u.vectors.used)} hint={`fair-share weight ${u.fair_share_weight}`} />
            </div>
            <p class="muted small">Days and months are UTC ({u.day}). Limits are set by the operator.</p>
          </>
        )}
      </Load>
    </Section>
  );
}

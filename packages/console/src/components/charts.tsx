/**
 * Small SVG charts. Sizes are SVG attributes, not style attributes: the CSP allows no inline styles.
 */

export interface Bar {
  label: string;
  value: number;
  /** What the bar is a share of (1 for scores); the bar fills value / max. */
  max: number;
  detail?: string;
  tone?: string;
}

export function ScoreBars({ bars, label, class: extra }: { bars: Bar[]; label: string; class?: string }) {
  return (
    <dl class={extra ? `score-bars ${extra}` : 'score-bars'} aria-label={label}>
      {bars.map((b) => {
        const share = b.max > 0 ? Math.max(0, Math.min(1, b.value / b.max)) : 0;
        return (
          <div class="score-bar" key={b.label}>
            <dt>{b.label}</dt>
            <dd>
              <svg class="bar-track" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true">
                <rect x="0" y="0" width="100" height="8" rx="2" class="track" />
                <rect x="0" y="0" width={share * 100} height="8" rx="2" class={`fill fill-${b.tone ?? 'accent'}`} />
              </svg>
              <span class="bar-value">{b.detail ?? b.value.toFixed(3)}</span>
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

export function StackedBar({ parts, label }: { parts: Array<{ label: string; value: number; tone: string }>; label: string }) {
  const total = parts.reduce((n, p) => n + p.value, 0);
  let x = 0;
  return (
    <figure class="stacked">
      <svg viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label={`${label}: ${parts.map((p) => `${p.label} ${p.value}`).join(', ')}`}>
        <rect x="0" y="0" width="100" height="10" class="track" />
        {total > 0 &&
          parts.map((p) => {
            const w = (p.value / total) * 100;
            const r = <rect key={p.label} x={x} y="0" width={w} height="10" class={`fill fill-${p.tone}`} />;
            x += w;
            return r;
          })}
      </svg>
      <figcaption class="legend">
        {parts.map((p) => (
          <span key={p.label} class="legend-item">
            <svg viewBox="0 0 10 10" class="swatch" aria-hidden="true">
              <rect width="10" height="10" rx="2" class={`fill fill-${p.tone}`} />
            </svg>
            {p.label} <strong>{p.value}</strong>
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** Counts per day as columns, with the busiest day's count as the scale. */
export function DayColumns({ days, label }: { days: Array<{ day: string; count: number }>; label: string }) {
  const max = Math.max(1, ...days.map((d) => d.count));
  const w = 100 / days.length;
  return (
    <figure class="columns">
      <svg viewBox="0 0 100 40" preserveAspectRatio="none" role="img" aria-label={`${label}: ${days.map((d) => `${d.day} ${d.count}`).join(', ')}`}>
        <line x1="0" y1="39.5" x2="100" y2="39.5" class="axis" />
        {days.map((d, i) => {
          const h = (d.count / max) * 36;
          return (
            <rect key={d.day} x={i * w + w * 0.15} y={39 - h} width={w * 0.7} height={h} class="fill fill-accent">
              <title>{`${d.day}: ${d.count}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption class="columns-axis">
        <span>{days[0]?.day}</span>
        <span>peak {max}/day</span>
        <span>{days[days.length - 1]?.day}</span>
      </figcaption>
    </figure>
  );
}

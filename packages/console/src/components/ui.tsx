import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

export function PageHeader({ title, subtitle, actions }: { title: string; subtitle?: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <header class="page-header">
      <div>
        <h1>{title}</h1>
        {subtitle && <p class="subtitle">{subtitle}</p>}
      </div>
      {actions && <div class="page-actions">{actions}</div>}
    </header>
  );
}

export function Badge({ tone = 'neutral', children }: { tone?: string; children: ComponentChildren }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}

const TONES: Record<string, string> = {
  hot: 'hot', warm: 'warm', cold: 'cold',
  ready: 'ok', succeeded: 'ok', active: 'ok', healthy: 'ok', connected: 'ok', enabled: 'ok',
  pending: 'info', processing: 'info', delivering: 'info', experimental: 'info',
  failed: 'bad', disconnected: 'bad', reverted: 'bad', disabled: 'bad',
  revoked: 'bad', expired: 'warn',
  superseded: 'neutral', ended: 'neutral', degraded: 'warn', not_configured: 'neutral', confidential: 'warn', archived: 'neutral',
};

export const StatusBadge = ({ value }: { value: string }) => <Badge tone={TONES[value] ?? 'neutral'}>{value.replace(/_/g, ' ')}</Badge>;

/** Metadata as indented JSON, scrolling inside its box whatever its depth or size. */
export function JsonView({ value, label }: { value: unknown; label: string }) {
  const text = JSON.stringify(value, null, 2) ?? 'null';
  return (
    <pre class="json" tabIndex={0} aria-label={label}>
      {text}
    </pre>
  );
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card" aria-label={title}>
      <div class="card-head">
        <h2>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

export function Field({ label, children, hint }: { label: string; children: ComponentChildren; hint?: string }) {
  return (
    <label class="field">
      <span class="field-label">{label}</span>
      {children}
      {hint && <span class="field-hint">{hint}</span>}
    </label>
  );
}

export function Stat({ label, value, hint }: { label: string; value: ComponentChildren; hint?: string }) {
  return (
    <div class="stat">
      <div class="stat-value">{value}</div>
      <div class="stat-label">{label}</div>
      {hint && <div class="stat-hint">{hint}</div>}
    </div>
  );
}

/** A destructive button that asks once more, inline (no modal to trap focus in). */
export function ConfirmButton({ label, confirmLabel, onConfirm, disabled, tone = 'danger' }: { label: string; confirmLabel: string; onConfirm: () => void; disabled?: boolean; tone?: string }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" class={`btn btn-${tone}`} disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label={`Confirm: ${label}`}>
      <button type="button" class={`btn btn-${tone}`} disabled={disabled} onClick={() => { setAsking(false); onConfirm(); }}>
        {confirmLabel}
      </button>
      <button type="button" class="btn btn-ghost" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

export const Scoped = ({ allowed, why, children }: { allowed: boolean; why: string; children: ComponentChildren }) =>
  allowed ? <>{children}</> : <p class="muted scoped-note">{why}</p>;

type Choice = string | readonly [value: string, label: string];

/** A filter's <select>: the "any" choice (value '') first, then each option (a value, or a value and its label). */
export function FilterSelect({ value, any, options, onChange }: { value: string | undefined; any: string; options: readonly Choice[]; onChange: (value: string) => void }) {
  return (
    <select value={value ?? ''} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
      <option value="">{any}</option>
      {options.map((o) => {
        const [v, label] = typeof o === 'string' ? [o, o] : o;
        return <option key={v} value={v}>{label}</option>;
      })}
    </select>
  );
}

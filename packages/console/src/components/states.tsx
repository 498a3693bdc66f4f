import type { ComponentChildren } from 'preact';
import type { ApiFailure } from '../api/client';
import type { Resource } from '../use-resource';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div class="state state-loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="state state-empty">
      <p class="state-title">{title}</p>
      {children && <div class="state-body">{children}</div>}
    </div>
  );
}

/** The API's own words: message, type and status, field details, and the request id to quote. */
export function ErrorPanel({ error, onRetry, compact }: { error: ApiFailure; onRetry?: () => void; compact?: boolean }) {
  const forbidden = error.status === 403;
  return (
    <div class={`state state-error${compact ? ' compact' : ''}`} role="alert" data-testid="error-panel">
      <p class="state-title">
        {forbidden ? 'Not allowed with this key' : error.status === 0 ? 'Request failed' : `Error ${error.status}`}
        {error.type && <code class="error-type">{error.type}</code>}
      </p>
      <p class="error-message">{error.message}</p>
      {error.details.length > 0 && (
        <ul class="error-details">
          {error.details.map((d) => (
            <li key={d.field}>
              <code>{d.field}</code>: {d.message}
            </li>
          ))}
        </ul>
      )}
      {forbidden && <p class="muted">Sign in with a key that holds the scope named above to do this.</p>}
      {error.requestId && (
        <p class="request-id">
          Request ID: <code data-testid="request-id">{error.requestId}</code>
        </p>
      )}
      {onRetry && (
        <button type="button" class="btn" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Renders a resource's loading and error states, and `children(data)` once it is ready. */
export function Load<T>({ resource, children, label }: { resource: Resource<T>; children: (data: T) => ComponentChildren; label?: string }) {
  if (resource.state === 'loading') return <Loading label={label} />;
  if (resource.state === 'error') return <ErrorPanel error={resource.error} onRetry={resource.reload} />;
  return <>{children(resource.data)}</>;
}

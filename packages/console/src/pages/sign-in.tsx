import { useState } from 'preact/hooks';
import { ApiClient, ApiFailure } from '../api/client';
import type { CurrentKey } from '../api/resources';
import { storeKey } from '../session';

export function SignIn({ onSignedIn, notice }: { onSignedIn: (key: string, grants: CurrentKey) => void; notice: string | null }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const key = value.trim();
    if (!key) {
      setError(new ApiFailure(0, 'missing_key', 'Paste an API key to sign in.', null));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const grants = await new ApiClient(key).get<CurrentKey>('/v1/auth/key');
      storeKey(key);
      setValue('');
      onSignedIn(key, grants);
    } catch (err) {
      setError(err instanceof ApiFailure ? err : new ApiFailure(0, 'client_error', String(err), null));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="signin">
      <form class="signin-card" onSubmit={submit} aria-labelledby="signin-title" noValidate>
        <div class="brand brand-large">
          <img src="/favicon.svg" alt="" width="36" height="36" />
          <span>Agent Memory</span>
        </div>
        <h1 id="signin-title">Sign in to the console</h1>
        <p class="muted">
          Use an API key (it starts with <code>mem_</code>). It stays in this tab's session storage and is forgotten when you sign out or
          close the tab.
        </p>
        {notice && !error && <p class="notice" role="status">{notice}</p>}
        <label class="field">
          <span class="field-label">API key</span>
          <input
            type="password"
            name="api-key"
            autoComplete="off"
            spellcheck={false}
            value={value}
            onInput={(e) => setValue((e.target as HTMLInputElement).value)}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? 'signin-error' : undefined}
            required
          />
        </label>
        {error && (
          <div id="signin-error" class="signin-error" role="alert" data-testid="signin-error">
            <strong>{error.status === 401 ? 'That key was not accepted.' : 'Could not sign in.'}</strong> {error.message}
            {error.requestId && <span class="request-id"> Request ID: <code>{error.requestId}</code></span>}
          </div>
        )}
        <button type="submit" class="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
        <p class="muted small">
          No key yet? <code>npm start</code> prints an admin key on the first start, and <code>POST /v1/auth/register</code> creates an account with
          one.
        </p>
      </form>
    </div>
  );
}

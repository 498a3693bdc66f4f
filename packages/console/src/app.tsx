import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiClient } from './api/client';
import type { CurrentKey } from './api/resources';
import { Layout } from './layout';
import { SignIn } from './pages/sign-in';
import { forgetKey, hasScope, SessionContext, storedKey, type ConsoleSession } from './session';
import { Loading } from './components/states';

/** Signed out: the sign-in page. Signed in: the console, with what the key's scopes allow. */
export function App() {
  const [key, setKey] = useState<string | null>(storedKey);
  const [grants, setGrants] = useState<CurrentKey | null>(null);
  const [expired, setExpired] = useState<string | null>(null);

  const signOut = (reason?: string) => {
    forgetKey();
    setKey(null);
    setGrants(null);
    setExpired(reason ?? null);
  };

  const api = useMemo(() => new ApiClient(key, () => signOut('Your key is no longer accepted (revoked or expired). Sign in again.')), [key]);

  // A stored key (a reload) is checked again before the console shows.
  useEffect(() => {
    if (!key || grants) return;
    api.get<CurrentKey>('/v1/auth/key').then(setGrants, () => signOut('Your session ended. Sign in again.'));
  }, [key, grants, api]);

  if (!key) return <SignIn notice={expired} onSignedIn={(k, g) => { setExpired(null); setGrants(g); setKey(k); }} />;
  if (!grants) return <div class="boot"><Loading label="Checking your key…" /></div>;

  const session: ConsoleSession = { api, key: grants, can: (s) => hasScope(grants.scopes, s), signOut: () => signOut() };
  return (
    <SessionContext.Provider value={session}>
      <Layout />
    </SessionContext.Provider>
  );
}

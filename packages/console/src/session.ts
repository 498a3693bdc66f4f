import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { ApiClient } from './api/client';
import type { CurrentKey, Scope } from './api/resources';

/** The key lives in sessionStorage only: gone when the tab closes or on sign-out, never in the URL. */
const STORAGE_KEY = 'ams.console.apiKey';

export const storedKey = (): string | null => sessionStorage.getItem(STORAGE_KEY);
export const storeKey = (key: string) => sessionStorage.setItem(STORAGE_KEY, key);
export const forgetKey = () => sessionStorage.removeItem(STORAGE_KEY);

export interface ConsoleSession {
  api: ApiClient;
  key: CurrentKey;
  can(scope: Scope): boolean;
  signOut(): void;
}

export const SessionContext = createContext<ConsoleSession | null>(null);

export function useSession(): ConsoleSession {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}

/** admin implies every scope, as on the server. */
export const hasScope = (scopes: Scope[], scope: Scope) => scopes.includes(scope) || scopes.includes('admin');

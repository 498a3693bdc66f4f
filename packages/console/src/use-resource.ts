import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure } from './api/client';

export type Resource<T> =
  | { state: 'loading'; data?: undefined; error?: undefined; reload: () => void }
  | { state: 'error'; data?: undefined; error: ApiFailure; reload: () => void }
  | { state: 'ready'; data: T; error?: undefined; reload: () => void };

export const asFailure = (err: unknown): ApiFailure =>
  err instanceof ApiFailure ? err : new ApiFailure(0, 'client_error', err instanceof Error ? err.message : String(err), null);

/** Loads `load()` whenever `deps` change; a stale answer (deps changed meanwhile) is dropped. */
export function useResource<T>(load: () => Promise<T>, deps: unknown[]): Resource<T> {
  const [state, setState] = useState<{ state: 'loading' } | { state: 'error'; error: ApiFailure } | { state: 'ready'; data: T }>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  const generation = useRef(0);
  useEffect(() => {
    const mine = ++generation.current;
    setState({ state: 'loading' });
    load().then(
      (data) => mine === generation.current && setState({ state: 'ready', data }),
      (err) => mine === generation.current && setState({ state: 'error', error: asFailure(err) }),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload } as Resource<T>;
}

/** An action's progress and failure, for buttons (save, delete, replay…). */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiFailure | null>(null);
  const run = useCallback(async <T>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (err) {
      setError(asFailure(err));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(null) };
}

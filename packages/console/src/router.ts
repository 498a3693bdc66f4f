import { useEffect, useState } from 'preact/hooks';

/**
 * Routes live in the URL fragment (#/memories/…): the API serves one page at `/`, so no server-side
 * fallback is needed and no console path can shadow an API path.
 */
export interface Route {
  path: string;
  segments: string[];
  query: URLSearchParams;
}

function current(): Route {
  const raw = window.location.hash.replace(/^#/, '') || '/memories';
  const [path = '/', search = ''] = raw.split('?');
  return { path, segments: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(search) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const onChange = () => setRoute(current());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function href(path: string, query: Record<string, string | undefined | null> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) params.set(k, v);
  const s = params.toString();
  return `#${path}${s ? `?${s}` : ''}`;
}

export function navigate(path: string, query: Record<string, string | undefined | null> = {}): void {
  window.location.hash = href(path, query).slice(1);
}

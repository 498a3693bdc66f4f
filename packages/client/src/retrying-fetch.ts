export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** Longest wait honoured from Retry-After, in ms (default 60 s). */
  maxDelayMs?: number;
  /** How to wait; tests pass their own. */
  sleep?: (ms: number) => Promise<void>;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * fetch that retries a 429 after its Retry-After (the request was not processed, so any method),
 * and a 5xx or a network failure of an idempotent method after an exponential backoff.
 */
export function retryingFetch(base: typeof fetch, opts: RetryOptions = {}): (req: Request) => Promise<Response> {
  const maxRetries = opts.maxRetries ?? 2;
  const maxDelayMs = opts.maxDelayMs ?? 60_000;
  const sleep = opts.sleep ?? defaultSleep;
  return async (request: Request) => {
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= maxRetries;
      const idempotent = IDEMPOTENT.has(request.method);
      let res: Response;
      try {
        res = await base(last ? request : request.clone());
      } catch (err) {
        if (last || !idempotent) throw err;
        await sleep(Math.min(maxDelayMs, 250 * 2 ** attempt));
        continue;
      }
      if (last) return res;
      if (res.status === 429) {
        const seconds = Number(res.headers.get('retry-after'));
        await res.body?.cancel();
        await sleep(Math.min(maxDelayMs, Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000));
        continue;
      }
      if (res.status >= 500 && idempotent) {
        await res.body?.cancel();
        await sleep(Math.min(maxDelayMs, 250 * 2 ** attempt));
        continue;
      }
      return res;
    }
  };
}

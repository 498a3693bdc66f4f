// HTTP helpers of the deploy test's node scripts: every request and wait bounded.

export class CheckFailed extends Error {}

export function check(ok, what, detail) {
  if (!ok) throw new CheckFailed(`${what}: failed${detail === undefined ? '' : ` (${JSON.stringify(detail).slice(0, 600)})`}`);
}

/** One request; `status: 0` with `error` when no answer came (refused, reset, timed out). */
export async function request(method, url, { key, body, text = false, timeoutMs = 15_000 } = {}) {
  const headers = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
    const raw = await res.text();
    let parsed = null;
    if (!text) {
      try {
        parsed = JSON.parse(raw);
      } catch {
        parsed = raw;
      }
    }
    return { status: res.status, headers: res.headers, body: parsed, text: raw };
  } catch (err) {
    return { status: 0, error: err.cause?.code ?? err.name ?? String(err) };
  }
}

export async function expectStatus(status, method, url, opts) {
  const res = await request(method, url, opts);
  check(res.status === status, `${method} ${new URL(url).pathname} answers ${status}`, { got: res.status, body: res.body, error: res.error });
  return res;
}

/** Calls `probe` every 250 ms until it returns something truthy; fails after `timeoutMs`. */
export async function poll(what, timeoutMs, probe) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new CheckFailed(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

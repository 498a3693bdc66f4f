import https from 'node:https';
import tls from 'node:tls';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { GuardedHttpsAgent, isAddressRefusedError } from './guarded-agent';
import { redactUrlSecrets } from './target-policy';

/**
 * One HTTP attempt of a webhook delivery. Retrying, scheduling and bookkeeping belong to the
 * dispatcher; this only posts, classifies the result and never throws for network outcomes.
 *
 * Classification (docs/api.md, "Webhooks and events"):
 * - 2xx → ok.
 * - 410 Gone → gone (the dispatcher disables the webhook); not retried.
 * - 3xx → failure, retried; redirects are never followed (a redirect could point anywhere, incl.
 *   an internal address), the Location is reported in the error.
 * - any other status (4xx incl. 408/429, 5xx) → failure, retried: the spec says failed deliveries
 *   are retried, and a receiver's 4xx is often a transient misdeploy; 3 retries cost little.
 * - network errors, TLS errors, timeouts → failure, retried.
 * - a refused URL (not https, unparsable) or address (not public) → failure, NOT retried: the
 *   same URL would be refused again.
 */

export interface DeliveryRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface DeliveryOptions {
  /** Whole attempt: DNS, connect, TLS, response headers and the excerpt of the body. */
  timeoutMs: number;
  /** Test setting only: allow 127.0.0.0/8 and ::1 receivers; every other non-public address stays refused. */
  allowLoopback: boolean;
  /** An extra trusted CA (PEM), added to Node's default roots; for test receivers with their own CA. */
  ca?: string | Buffer;
}

export interface DeliveryOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  /** First bytes (≤ RESPONSE_EXCERPT_MAX_BYTES) of the response body; null when no response arrived. */
  responseExcerpt: string | null;
  durationMs: number;
  retryable: boolean;
  /** The receiver answered 410 Gone: the webhook should be disabled. */
  gone: boolean;
}

const RESPONSE_EXCERPT_MAX_BYTES = 1024;

type Verdict = Omit<DeliveryOutcome, 'durationMs'>;

const refused = (error: string): Verdict => ({
  ok: false, statusCode: null, error, responseExcerpt: null, retryable: false, gone: false,
});

function classifyResponse(res: IncomingMessage, excerpt: string): Verdict {
  const statusCode = res.statusCode ?? 0;
  const base = { statusCode, responseExcerpt: excerpt };
  if (statusCode >= 200 && statusCode < 300) return { ...base, ok: true, error: null, retryable: false, gone: false };
  if (statusCode === 410) return { ...base, ok: false, error: 'HTTP 410 Gone', retryable: false, gone: true };
  if (statusCode >= 300 && statusCode < 400) {
    // Shown in delivery logs and the console: the same redaction as the webhook's own URL.
    const location = res.headers.location ? redactUrlSecrets(res.headers.location) : '(none)';
    return { ...base, ok: false, error: `HTTP ${statusCode} redirect not followed (Location: ${location})`, retryable: true, gone: false };
  }
  return { ...base, ok: false, error: `HTTP ${statusCode}`, retryable: true, gone: false };
}

// Parsing Node's ~140 root certificates plus the extra CA costs milliseconds of CPU: do it once per CA.
const secureContexts = new Map<string, tls.SecureContext>();
function secureContextFor(ca: string): tls.SecureContext {
  let context = secureContexts.get(ca);
  if (!context) {
    context = tls.createSecureContext({ ca: [...tls.rootCertificates, ca] });
    secureContexts.set(ca, context);
  }
  return context;
}

export function deliverOnce(request: DeliveryRequest, options: DeliveryOptions): Promise<DeliveryOutcome> {
  const startedAt = performance.now();
  const finish = (verdict: Verdict): DeliveryOutcome => ({
    ...verdict,
    durationMs: Math.round(performance.now() - startedAt),
  });

  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return Promise.resolve(finish(refused('invalid URL')));
  }
  if (url.protocol !== 'https:') {
    return Promise.resolve(finish(refused(`refused: only https URLs are allowed, got ${url.protocol}`)));
  }

  // One agent per attempt, no keep-alive: nothing outlives the attempt (no idle sockets keeping a
  // worker or a test alive), and every attempt re-checks the address it connects to.
  const agent = new GuardedHttpsAgent({
    policy: { allowLoopback: options.allowLoopback },
    keepAlive: false,
    ...(options.ca !== undefined ? { secureContext: secureContextFor(options.ca.toString()) } : {}),
  });

  return new Promise<DeliveryOutcome>((resolve) => {
    let settled = false;
    let req: ClientRequest | null = null;
    let response: IncomingMessage | null = null;
    let timer: NodeJS.Timeout | null = null;
    const settle = (verdict: Verdict): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      response?.destroy();
      req?.destroy();
      agent.destroy();
      resolve(finish(verdict));
    };

    timer = setTimeout(() => {
      settle({
        ok: false, statusCode: response?.statusCode ?? null, error: `timeout after ${options.timeoutMs}ms`,
        responseExcerpt: null, retryable: true, gone: false,
      });
    }, options.timeoutMs);

    const onResponse = (res: IncomingMessage): void => {
      response = res;
      // Read only a small excerpt: a receiver must not be able to make us buffer a large body.
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (): void => {
        const excerpt = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_MAX_BYTES).toString('utf8');
        settle(classifyResponse(res, excerpt));
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_EXCERPT_MAX_BYTES) done();
      });
      res.on('end', done);
      res.on('error', (error) => settle({ ...networkFailure(error), statusCode: res.statusCode ?? null }));
    };

    try {
      req = https.request(
        {
          protocol: 'https:',
          // URL keeps IPv6 literals bracketed ("[::1]"); the socket layer wants them bare.
          hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: url.port || 443,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          agent,
          headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
          ...(url.username
            ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` }
            : {}),
        },
        onResponse,
      );
    } catch (error) {
      // Only malformed input gets here (e.g. a header value with a newline): not worth retrying.
      settle(refused(`invalid request: ${(error as Error).message}`));
      return;
    }
    req.on('error', (error) => settle(networkFailure(error)));
    req.end(request.body);
  });
}

function networkFailure(error: Error): Verdict {
  if (isAddressRefusedError(error)) return refused(error.message);
  const code = (error as NodeJS.ErrnoException).code;
  const message = code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  return { ok: false, statusCode: null, error: message, responseExcerpt: null, retryable: true, gone: false };
}

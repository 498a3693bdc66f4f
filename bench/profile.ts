/**
 * Where a search request's time goes, measured from outside the service code: the HTTP server's
 * request → finish, the embedder's calls, every SQL statement (knex query events, classified by
 * what it reads or writes), Redis commands (the rate limiter), each attributed to its request by
 * AsyncLocalStorage; the JavaScript in between is split by a sampled CPU profile (node:inspector)
 * grouped by the package or source file it runs in.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Server } from 'node:http';
import inspector from 'node:inspector';
import { performance } from 'node:perf_hooks';
import type { AppContext } from '@ams/api';

interface RequestSpans {
  started: number;
  parts: Map<string, number>;
}

const als = new AsyncLocalStorage<RequestSpans>();

/** Far from its limit a request does not wait for the rate limiter's Redis command: it overlaps the rest, so it is not subtracted. */
const REDIS_SPAN = 'rate limit, Redis round trip (in flight beside the rest unless near the limit; not subtracted)';

function add(span: RequestSpans | undefined, part: string, ms: number): void {
  if (span) span.parts.set(part, (span.parts.get(part) ?? 0) + ms);
}

/** What a statement does, from its SQL. */
function classify(sql: string): string {
  const s = sql.toLowerCase();
  if (s.includes('api_keys')) return 'SQL: auth (API key lookup/touch)';
  if (s.includes('search_events') && s.includes('memories')) return 'SQL: result rows + entities + search-event write (one statement)';
  if (s.includes('search_events')) return 'SQL: search-event write';
  if (s.includes('<=>') || s.startsWith('set local') || s.includes("set_config('hnsw")) return 'SQL: pgvector top-k (incl. its settings)';
  if (s.includes('tsquery')) return 'SQL: full-text candidates';
  if (s.includes('entity_memory_links') || s.includes('"entities"')) return 'SQL: entity hydration / graph';
  if (s.includes('from "agents"') || s.includes('into "agents"')) return 'SQL: agent resolution';
  if (s.includes('from "memories"')) return 'SQL: memory rows hydration';
  if (s === 'begin;' || s === 'commit;' || s === 'rollback;' || s.startsWith('begin') || s.startsWith('commit')) return 'SQL: BEGIN/COMMIT';
  return 'SQL: other';
}

export class SearchProfiler {
  readonly requests: RequestSpans[] = [];
  private enabled = false;
  private session?: inspector.Session;

  /** Wraps the embedder, Redis and knex of `ctx` (call before the app is built). */
  instrument = (ctx: AppContext): void => {
    const embedder = ctx.embedder;
    const embed = embedder.embed.bind(embedder);
    ctx.embedder = Object.assign(Object.create(Object.getPrototypeOf(embedder)), embedder, {
      embed: async (texts: string[]) => {
        const t0 = performance.now();
        try {
          return await embed(texts);
        } finally {
          add(als.getStore(), 'query embed (model)', performance.now() - t0);
        }
      },
    });
    const client = ctx.redis?.client;
    if (client) {
      const send = client.sendCommand.bind(client);
      client.sendCommand = (async (...args: Parameters<typeof send>) => {
        const t0 = performance.now();
        try {
          return await send(...args);
        } finally {
          add(als.getStore(), REDIS_SPAN, performance.now() - t0);
        }
      }) as typeof client.sendCommand;
    }
    const started = new Map<string, { t0: number; span?: RequestSpans; sql: string }>();
    ctx.db.knex.on('query', (q: { __knexQueryUid: string; sql: string }) => {
      started.set(q.__knexQueryUid, { t0: performance.now(), span: als.getStore(), sql: q.sql });
    });
    const done = (_r: unknown, q: { __knexQueryUid: string }) => {
      const s = started.get(q.__knexQueryUid);
      started.delete(q.__knexQueryUid);
      if (s) add(s.span, classify(s.sql), performance.now() - s.t0);
    };
    ctx.db.knex.on('query-response', done);
    ctx.db.knex.on('query-error', (err: unknown, q: { __knexQueryUid: string }) => done(err, q));
  };

  /** Runs every request of `server` inside its own span. */
  attach(server: Server): void {
    const listeners = server.listeners('request') as Array<(...a: unknown[]) => void>;
    server.removeAllListeners('request');
    server.on('request', (req, res) => {
      if (!this.enabled) return listeners.forEach((l) => l.call(server, req, res));
      const span: RequestSpans = { started: performance.now(), parts: new Map() };
      res.once('finish', () => {
        span.parts.set('total', performance.now() - span.started);
        this.requests.push(span);
      });
      als.run(span, () => listeners.forEach((l) => l.call(server, req, res)));
    });
  }

  async start(): Promise<void> {
    this.enabled = true;
    this.session = new inspector.Session();
    this.session.connect();
    await this.post('Profiler.enable');
    await this.post('Profiler.setSamplingInterval', { interval: 200 });
    await this.post('Profiler.start');
  }

  /** Stops; returns ms per request for each span, and the CPU profile's self time by package/file. */
  async stop(): Promise<{ spans: Array<[string, number]>; cpu: Array<[string, number]>; requests: number }> {
    this.enabled = false;
    const { profile } = (await this.post('Profiler.stop')) as { profile: CpuProfile };
    this.session?.disconnect();
    const n = this.requests.length;
    const sums = new Map<string, number>();
    for (const r of this.requests) for (const [k, v] of r.parts) sums.set(k, (sums.get(k) ?? 0) + v);
    const spans = [...sums].map(([k, v]) => [k, v / n] as [string, number]);
    const total = sums.get('total') ?? 0;
    const accounted = [...sums].filter(([k]) => k !== 'total' && k !== REDIS_SPAN).reduce((a, [, v]) => a + v, 0);
    spans.push(['JavaScript and waits in between (total − the above)', (total - accounted) / n]);
    return { spans: spans.sort((a, b) => b[1] - a[1]), cpu: cpuByArea(profile, n), requests: n };
  }

  private post(method: string, params?: object): Promise<unknown> {
    return new Promise((resolve, reject) => this.session!.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  }
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

function areaOf(url: string): string | undefined {
  if (!url) return undefined;
  if (url.includes('node_modules/')) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url.slice(url.lastIndexOf('node_modules/')));
    return m ? `npm: ${m[1]}` : 'npm: ?';
  }
  if (url.startsWith('node:')) return `node: ${url.slice(5).split('/')[0]}`;
  const m = /\/(services\/[^/]+\/src\/[^/]+|packages\/[^/]+|bench)\//.exec(url);
  return m ? `ours: ${m[1]}` : `other: ${url.split('/').pop()}`;
}

/**
 * Self time per request, by where the code lives (a package under node_modules, or our source
 * tree); native frames (JSON, crypto, the ONNX runtime's binding) count for the JS that called them.
 */
function cpuByArea(profile: CpuProfile, requests: number): Array<[string, number]> {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const area = (id: number): string => {
    const { url, functionName } = byId.get(id)!.callFrame;
    if (!url && functionName.startsWith('(')) return functionName;
    const own = areaOf(url);
    if (own) return own;
    for (let p = parent.get(id); p !== undefined; p = parent.get(p)) {
      const up = areaOf(byId.get(p)!.callFrame.url);
      if (up) return `${up} (native ${functionName || 'code'})`;
    }
    return `native: ${functionName || '(anonymous)'}`;
  };
  const ms = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const a = area(id);
    ms.set(a, (ms.get(a) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  // Idle, and the profiler's own work handing the profile over.
  for (const k of [...ms.keys()]) if (k === '(idle)' || k.startsWith('node: inspector')) ms.delete(k);
  return [...ms].map(([k, v]) => [k, v / Math.max(1, requests)] as [string, number]).sort((a, b) => b[1] - a[1]);
}

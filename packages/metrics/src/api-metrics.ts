import { Counter, Histogram, Registry } from 'prom-client';
import type { Knex } from '@ams/db';
import { embeddingQueueGauges } from './embedding-queue-gauges';

/** The route label of a request no route matched (404s, the console's static files). */
export const UNMATCHED_ROUTE = '(unmatched)';

export interface ApiMetrics {
  /** This API process's one registry (the query embedding cache counts into it too). */
  registry: Registry;
  /** `route` is the route's pattern (`/v1/memories/:id`), never the URL: label values stay few. */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  observeSearch(mode: string, seconds: number): void;
  /** One OAuth event (a sign-in, a consent, a token issued, refused or revoked...). */
  countOAuth(event: string): void;
}

/**
 * Prometheus metrics of one API process: requests by route pattern and status, search latency by
 * mode, and the embedding queue as the database sees it (read at scrape time).
 */
export function apiMetrics(db: Knex, registry = new Registry()): ApiMetrics {
  const requests = new Counter({
    name: 'ams_http_requests_total',
    help: 'Requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const requestSeconds = new Histogram({
    name: 'ams_http_request_duration_seconds',
    help: 'Time from receiving a request to finishing its response, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const searchSeconds = new Histogram({
    name: 'ams_search_duration_seconds',
    help: 'Time one memory search took (candidates, ranking, presenting), by mode (semantic, keyword, hybrid).',
    labelNames: ['mode'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const oauthEvents = new Counter({
    name: 'ams_oauth_events_total',
    help: 'OAuth events of the built-in authorization server, by event (sign_in_failed, consent_approved, token_refreshed, grant_revoked, ...).',
    labelNames: ['event'],
    registers: [registry],
  });
  embeddingQueueGauges(registry, db);
  return {
    registry,
    observeRequest(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      requestSeconds.observe(labels, seconds);
    },
    observeSearch(mode, seconds) {
      searchSeconds.observe({ mode }, seconds);
    },
    countOAuth(event) {
      oauthEvents.inc({ event });
    },
  };
}

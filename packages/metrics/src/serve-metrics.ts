import http from 'node:http';
import type { Registry } from 'prom-client';

/**
 * A process's metrics listener: GET /metrics in Prometheus text format, anything else 404. No
 * key: bind it to an address only the scraper reaches (each process's *_METRICS_PORT).
 */
export function serveMetrics(registry: Registry, port: number, host: string): http.Server {
  return http
    .createServer((req, res) => {
      if (req.method !== 'GET' || req.url !== '/metrics') return void res.writeHead(404).end();
      registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
        (err: Error) => res.writeHead(503, { 'content-type': 'text/plain' }).end(`metrics unavailable: ${err.message}\n`),
      );
    })
    .listen(port, host);
}

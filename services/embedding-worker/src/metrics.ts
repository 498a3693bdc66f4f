import http from 'node:http';
import type { WorkerCounters } from '@ams/ingestion';

/** Prometheus text on /metrics: queue depth from the database, job counts from this process. */
export function startMetricsServer(port: number, host: string, read: () => Promise<{ waiting: number; counters: WorkerCounters }>): http.Server {
  return http
    .createServer(async (req, res) => {
      if (req.url !== '/metrics') return void res.writeHead(404).end();
      const { waiting, counters } = await read().catch(() => ({ waiting: -1, counters: undefined }));
      const lines = [
        '# HELP ams_embedding_waiting Memories pending or processing (all workers).',
        '# TYPE ams_embedding_waiting gauge',
        `ams_embedding_waiting ${waiting}`,
        ...(counters
          ? Object.entries(counters).flatMap(([k, v]) => [`# TYPE ams_embedding_${k}_total counter`, `ams_embedding_${k}_total ${v}`])
          : []),
      ];
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(`${lines.join('\n')}\n`);
    })
    .listen(port, host);
}

import { Gauge, type Registry } from 'prom-client';

/** A backlog the database holds, read at scrape time: its depth by status and the age of its oldest item. */
export interface Backlog<S extends string> {
  depth: { name: string; help: string; read(): Promise<Record<S, number>> };
  oldest: { name: string; help: string; read(): Promise<number> };
}

export function backlogGauges<S extends string>(registry: Registry, backlog: Backlog<S>): void {
  const { depth, oldest } = backlog;
  new Gauge({
    name: depth.name,
    help: depth.help,
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      for (const [status, n] of Object.entries(await depth.read())) this.set({ status }, n as number);
    },
  });
  new Gauge({
    name: oldest.name,
    help: oldest.help,
    registers: [registry],
    async collect() {
      this.set(await oldest.read());
    },
  });
}

import { Counter, Gauge, Registry } from 'prom-client';
import type { ReplicaState } from '@ams/db';
import type { ReadRoute, ReadRouting } from '@ams/runtime';

const STATES: ReplicaState[] = ['starting', 'up', 'lagging', 'down', 'not_a_standby'];

/**
 * Each read replica's lag and state, and where reads went, read from `routing` at scrape time.
 * Registered once per registry (a second app on the same registry shares them).
 */
export function replicaMetrics(registry: Registry, routing: ReadRouting): void {
  if (registry.getSingleMetric('ams_db_replica_lag_seconds')) return;
  new Gauge({
    name: 'ams_db_replica_lag_seconds',
    help: "Upper bound on how far a read replica's data is behind the primary (NaN before it has caught up once).",
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      for (const r of routing.replicas.status()) this.set({ replica: r.name }, r.lagMs === null ? NaN : r.lagMs / 1000);
    },
  });
  new Gauge({
    name: 'ams_db_replica_lag_bytes',
    help: 'WAL bytes the primary had written past a read replica\'s replay position at the last check.',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      for (const r of routing.replicas.status()) this.set({ replica: r.name }, r.lagBytes ?? NaN);
    },
  });
  new Gauge({
    name: 'ams_db_replica_state',
    help: 'A read replica\'s state: 1 for the one it is in (up: in rotation; lagging: past DATABASE_REPLICA_MAX_LAG_MS; down: unreachable; not_a_standby; starting), 0 for the others.',
    labelNames: ['replica', 'state'],
    registers: [registry],
    collect() {
      for (const r of routing.replicas.status()) for (const state of STATES) this.set({ replica: r.name, state }, r.state === state ? 1 : 0);
    },
  });
  new Counter({
    name: 'ams_db_reads_routed_total',
    help: "Read requests by where they went: replica; own_write (the key's last write not yet on a replica: primary); no_replica (none in rotation: primary); fence_unknown (Redis away: primary).",
    labelNames: ['route'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [route, n] of Object.entries(routing.routed) as Array<[ReadRoute, number]>) this.inc({ route }, n);
    },
  });
}

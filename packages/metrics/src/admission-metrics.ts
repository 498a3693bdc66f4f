import { Counter, Gauge, type Registry } from 'prom-client';

interface AdmissionState {
  inFlight(): number;
  queued(): number;
}

/**
 * The API's admission queue: requests in progress and waiting (read at scrape time), and refusals
 * at the door by reason (a closed set: label values stay few). Returns the refusal counter.
 */
export function admissionMetrics(registry: Registry, state: AdmissionState): (reason: string) => void {
  new Gauge({
    name: 'ams_admission_in_flight',
    help: 'Requests in progress in this API process (bounded by MAX_IN_FLIGHT_REQUESTS).',
    registers: [registry],
    collect() {
      this.set(state.inFlight());
    },
  });
  new Gauge({
    name: 'ams_admission_queued',
    help: 'Requests waiting for a slot in this API process, all accounts together.',
    registers: [registry],
    collect() {
      this.set(state.queued());
    },
  });
  const refusals = new Counter({
    name: 'ams_admission_refusals_total',
    help: 'Requests refused with 503 by the admission queue, by reason (queue_full, over_budget, made_room, waited_past_budget, database_saturated, event_loop_saturated).',
    labelNames: ['reason'],
    registers: [registry],
  });
  return (reason) => refusals.inc({ reason });
}

import type { Knex } from 'knex';
import type { EventType } from '@ams/vocabulary';
import { Page, PageParams, paginate } from '../pagination';
import { claimAcrossAccounts } from './fair-claim';

export interface DeliveryRow {
  account_id: string;
  id: string;
  webhook_id: string | null;
  target_url: string | null;
  event_id: string;
  event_type: EventType;
  payload: Record<string, unknown>;
  status: 'pending' | 'delivering' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: Date;
  locked_until: Date | null;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  response_excerpt: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptResult {
  status: 'pending' | 'succeeded' | 'failed';
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
  /** When status is pending: when to try again. */
  nextAttemptAt?: Date;
}

export interface ClaimedDelivery extends DeliveryRow {
  /** The previous claim's lease ran out: its dispatcher died or stalled mid-delivery. */
  reclaimed: boolean;
}

export interface RecordedEvent {
  eventId: string;
  deliveryIds: string[];
}

export interface OutboxEvent {
  accountId: string;
  type: EventType;
  data: Record<string, unknown>;
  eventId: string;
  createdAt: Date;
}

export interface RecordedDelivery {
  accountId: string;
  deliveryId: string;
}

/** The body every receiver gets, stored as sent. */
const payloadOf = (e: OutboxEvent) => ({ id: e.eventId, type: e.type, created_at: e.createdAt.toISOString(), data: e.data });

/** The row while this claim still holds it (see claimDue). */
const claimed = (db: Knex, d: DeliveryRow) =>
  db('webhook_deliveries').where({ account_id: d.account_id, id: d.id, status: 'delivering', locked_until: d.locked_until });

/** A delivery a dispatcher may claim: due, and no live lease on it. */
const DUE = `status IN ('pending', 'delivering') AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())`;

/** claimDue within one account (one shard on Citus), oldest due first. */
async function claimDueOfAccount(db: Knex, leaseMs: number, accountId: string, limit: number, id?: string): Promise<ClaimedDelivery[]> {
  const { rows } = await db.raw(
    // MATERIALIZED: the locking read runs once (a rescanned SKIP LOCKED subquery returns more than its limit).
    `WITH due AS MATERIALIZED (
       SELECT account_id, id, status AS previous_status FROM webhook_deliveries
        WHERE account_id = ? AND ${DUE} ${id ? 'AND id = ?' : ''}
        ORDER BY next_attempt_at
        LIMIT ? FOR UPDATE SKIP LOCKED)
     UPDATE webhook_deliveries d
        SET status = 'delivering',
            locked_until = date_trunc('milliseconds', now() + (? * interval '1 millisecond')),
            updated_at = now()
       FROM due
      WHERE d.account_id = ? AND d.account_id = due.account_id AND d.id = due.id
     RETURNING d.*, due.previous_status = 'delivering' AS reclaimed`,
    [accountId, ...(id ? [id] : []), limit, leaseMs, accountId],
  );
  return rows as ClaimedDelivery[];
}

/** PostgreSQL text cannot hold NUL characters, which a receiver's response may contain. */
const storable = (text: string | null) => (text === null ? null : text.replaceAll('\u0000', ''));

export const webhookDeliveriesRepository = {
  /**
   * The transactional outbox: call with the transaction that makes the change. Writes one pending
   * delivery per enabled webhook of the account subscribed to the event (empty event_types = all),
   * all sharing one event id.
   */
  async recordEvent(trx: Knex, e: OutboxEvent): Promise<RecordedEvent> {
    const recorded = await webhookDeliveriesRepository.recordEvents(trx, [e]);
    return { eventId: e.eventId, deliveryIds: recorded.map((r) => r.deliveryId) };
  },

  /** recordEvent for many events (of any accounts) in one statement, whatever their number and the webhooks'. */
  async recordEvents(trx: Knex, events: OutboxEvent[]): Promise<RecordedDelivery[]> {
    if (events.length === 0) return [];
    return deliveriesOf(await subscribedInsert(trx, events));
  },

  /** A v2 create's one-shot `webhook_url` notifications: deliveries with a target URL and no webhook. */
  async recordOneShots(trx: Knex, events: Array<OutboxEvent & { url: string }>): Promise<RecordedDelivery[]> {
    if (events.length === 0) return [];
    return deliveriesOf(await oneShotInsert(trx, events));
  },

  /**
   * Claims deliveries that are due, for `leaseMs`: a claimed row is invisible to other dispatchers
   * until the lease runs out (a dispatcher killed mid-delivery frees it then). SKIP LOCKED lets
   * several dispatchers claim at once without waiting on each other. Account by account, fairly
   * (claimAcrossAccounts): one account's flood never holds back another's deliveries, and each
   * locking statement stays on one shard on Citus. With `only`, just that one.
   * The lease end, cut to milliseconds so it survives a JS Date, is the claim's fencing token:
   * the outcome is recorded only while the row still carries it. Uses webhook_deliveries_due_idx.
   */
  async claimDue(db: Knex, leaseMs: number, limit: number, only?: { accountId: string; id: string }): Promise<ClaimedDelivery[]> {
    if (only) return claimDueOfAccount(db, leaseMs, only.accountId, limit, only.id);
    return claimAcrossAccounts(
      limit,
      async (n) => {
        const { rows } = await db.raw(
          `SELECT account_id FROM webhook_deliveries WHERE ${DUE}
            GROUP BY account_id ORDER BY min(next_attempt_at) LIMIT ?`,
          [n],
        );
        return (rows as Array<{ account_id: string }>).map((r) => r.account_id);
      },
      (accountId, n) => claimDueOfAccount(db, leaseMs, accountId, n),
    );
  },

  /** Records one attempt's outcome; false when the claim was lost (the lease ran out and another dispatcher took over). */
  async recordAttempt(db: Knex, d: DeliveryRow, r: AttemptResult): Promise<boolean> {
    const updated = await claimed(db, d).update({
      status: r.status,
      attempts: d.attempts + 1,
      last_attempt_at: db.fn.now(),
      last_status_code: r.statusCode,
      last_error: storable(r.error),
      response_excerpt: storable(r.responseExcerpt),
      next_attempt_at: r.nextAttemptAt ?? db.fn.now(),
      locked_until: null,
      updated_at: db.fn.now(),
    });
    return updated > 0;
  },

  /** Ends a claimed delivery without sending it (its webhook is disabled or gone). */
  async skip(db: Knex, d: DeliveryRow, reason: string): Promise<boolean> {
    const updated = await claimed(db, d).update({ status: 'failed', last_error: reason, locked_until: null, updated_at: db.fn.now() });
    return updated > 0;
  },

  /** Gives claims back unattempted (a dispatcher shutting down): due again at once, for any dispatcher. */
  async releaseClaims(db: Knex, deliveries: DeliveryRow[]): Promise<void> {
    for (const d of deliveries) await claimed(db, d).update({ status: 'pending', locked_until: null, updated_at: db.fn.now() });
  },

  /**
   * Deliveries not finished, by status, each counted up to `cap` (metrics). Spans accounts on
   * purpose, like the claims: the outbox is operational state. Reads webhook_deliveries_due_idx.
   */
  async unfinished(db: Knex, cap = 100_000): Promise<{ pending: number; delivering: number }> {
    const count = (status: string) =>
      `(SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries WHERE status = '${status}' LIMIT ?) w)`;
    const { rows } = await db.raw(`SELECT ${count('pending')} AS pending, ${count('delivering')} AS delivering`, [cap, cap]);
    return { pending: Number(rows[0].pending), delivering: Number(rows[0].delivering) };
  },

  /** Seconds the most overdue unfinished delivery has been due (0 when none is): one row of webhook_deliveries_due_idx. */
  async oldestDueAgeSeconds(db: Knex): Promise<number> {
    const { rows } = await db.raw(
      `SELECT EXTRACT(EPOCH FROM now() - next_attempt_at) AS age FROM webhook_deliveries
        WHERE status IN ('pending', 'delivering') ORDER BY next_attempt_at LIMIT 1`,
    );
    return Math.max(0, Number(rows[0]?.age ?? 0));
  },

  async listForWebhook(db: Knex, accountId: string, webhookId: string, page: PageParams): Promise<Page<DeliveryRow>> {
    return paginate<DeliveryRow>(
      db('webhook_deliveries').where({ 'webhook_deliveries.account_id': accountId, 'webhook_deliveries.webhook_id': webhookId }),
      'webhook_deliveries',
      page,
    );
  },

  async find(db: Knex, accountId: string, id: string): Promise<DeliveryRow | undefined> {
    return db('webhook_deliveries').where({ account_id: accountId, id }).first();
  },

  /** A failed delivery starts over: pending, due now, attempts reset. */
  async replay(db: Knex, accountId: string, id: string): Promise<DeliveryRow | undefined> {
    const [row] = await db('webhook_deliveries')
      .where({ account_id: accountId, id, status: 'failed' })
      .update({ status: 'pending', attempts: 0, next_attempt_at: db.fn.now(), locked_until: null, updated_at: db.fn.now() })
      .returning('*');
    return row as DeliveryRow | undefined;
  },
};

/**
 * The outbox INSERT of recordEvents, as a statement to run or to embed in a larger one (a
 * data-modifying CTE; see newMemoriesRepository): RETURNING account_id, id. No events, no rows.
 */
export function subscribedInsert(db: Knex, events: OutboxEvent[]): Knex.Raw {
  return db.raw(
    `INSERT INTO webhook_deliveries (account_id, webhook_id, event_id, event_type, payload)
     SELECT w.account_id, w.id, e.event_id, e.type, e.payload
       FROM jsonb_to_recordset(?::jsonb) AS e(account_id uuid, event_id uuid, type text, payload jsonb)
       JOIN webhooks w ON w.account_id = e.account_id
      WHERE w.account_id = ANY (?::uuid[]) AND w.enabled AND (cardinality(w.event_types) = 0 OR e.type = ANY (w.event_types))
     RETURNING account_id, id`,
    [
      JSON.stringify(events.map((e) => ({ account_id: e.accountId, event_id: e.eventId, type: e.type, payload: payloadOf(e) }))),
      // The accounts as values too: on Citus the webhooks read prunes to their shards (one for one account).
      [...new Set(events.map((e) => e.accountId))],
    ],
  );
}

/** The INSERT of recordOneShots, to run or embed as subscribedInsert. */
export function oneShotInsert(db: Knex, events: Array<OutboxEvent & { url: string }>): Knex.Raw {
  return db.raw(
    `INSERT INTO webhook_deliveries (account_id, target_url, event_id, event_type, payload)
     SELECT e.account_id, e.url, e.event_id, e.type, e.payload
       FROM jsonb_to_recordset(?::jsonb) AS e(account_id uuid, url text, event_id uuid, type text, payload jsonb)
     RETURNING account_id, id`,
    [JSON.stringify(events.map((e) => ({ account_id: e.accountId, url: e.url, event_id: e.eventId, type: e.type, payload: payloadOf(e) })))],
  );
}

const deliveriesOf = (result: { rows: Array<{ account_id: string; id: string }> }): RecordedDelivery[] =>
  result.rows.map((r) => ({ accountId: r.account_id, deliveryId: r.id }));

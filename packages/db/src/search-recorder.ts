import type { Knex } from 'knex';
import { detachedFromRequest } from './read-cancellation';
import { SearchEvent, searchEventsRepository } from './repositories/search-events.repository';

/** Records per INSERT: a burst larger than this is written in several. */
const MAX_PER_STATEMENT = 200;
/**
 * How long the first record of a write waits for others: at a few dozen searches a second from one
 * client, each would otherwise be an INSERT and a commit of its own, CPU that the searches share
 * the cores with.
 */
const GATHER_MS = 50;

/** The records grouped by account, each group in MAX_PER_STATEMENT chunks: one INSERT each, a single shard's on Citus. */
function statementsOf(batch: SearchEvent[]): SearchEvent[][] {
  const byAccount = new Map<string, SearchEvent[]>();
  for (const e of batch) {
    const events = byAccount.get(e.accountId) ?? [];
    events.push(e);
    byAccount.set(e.accountId, events);
  }
  return [...byAccount.values()].flatMap((events) => Array.from({ length: Math.ceil(events.length / MAX_PER_STATEMENT) }, (_, i) => events.slice(i * MAX_PER_STATEMENT, (i + 1) * MAX_PER_STATEMENT)));
}

/**
 * The process's writer of search records (one per API process, made and closed with its context).
 * A search hands its record over and answers at once; the record is written after the answer has
 * gone out, on the primary, outside the request (a search whose client left was still asked).
 * Records handed over within `gatherMs` of the first, or while a write is under way, go together in
 * one INSERT per account (an account's statement stays on its shard on Citus) instead of one each.
 * written() is what reads of search_events in this process wait for: it writes what is gathered at
 * once, so stats read right after a search include it without waiting out the window. A failure is
 * reported to `onFailure` and never fails a search; a failed batch is written again one record at a
 * time, so a record the database refuses loses only itself.
 */
export class SearchRecorder {
  private queued: SearchEvent[] = [];
  /** Settles when the queued records are written: the write after the one under way. */
  private next?: { done: Promise<void>; settle: () => void };
  /** The write under way (or the last one). */
  private current: Promise<void> = Promise.resolve();
  private draining = false;
  /** Ends the gathering wait early (a reader waits for the records). */
  private writeNow?: () => void;

  constructor(
    private readonly primary: Knex,
    private readonly onFailure: (err: Error, lost: number) => void,
    private readonly gatherMs = GATHER_MS,
  ) {}

  record(event: SearchEvent): void {
    this.queued.push(event);
    if (!this.next) {
      let settle!: () => void;
      const done = new Promise<void>((resolve) => (settle = resolve));
      this.next = { done, settle };
    }
    if (!this.draining) {
      this.draining = true;
      void detachedFromRequest(() => this.drain());
    }
  }

  /** Resolves once every record handed over so far is written (or has failed). */
  written(): Promise<void> {
    this.writeNow?.();
    return this.next?.done ?? this.current;
  }

  private async drain(): Promise<void> {
    // The answer goes out first (it was sent in the turn that handed the record over), and the
    // records of the next gatherMs join it.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.gatherMs);
      this.writeNow = () => {
        clearTimeout(timer);
        setImmediate(resolve);
      };
    });
    this.writeNow = undefined;
    while (this.next) {
      const { done, settle } = this.next;
      const batch = this.queued;
      this.queued = [];
      this.next = undefined;
      this.current = done;
      for (const records of statementsOf(batch)) await this.write(records);
      settle();
    }
    this.draining = false;
  }

  private async write(batch: SearchEvent[]): Promise<void> {
    try {
      await searchEventsRepository.recordMany(this.primary, batch);
    } catch (err) {
      if (batch.length === 1) return this.onFailure(err as Error, 1);
      for (const one of batch) await this.write([one]);
    }
  }
}

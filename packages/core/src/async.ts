import { setImmediate as nextTurn } from 'node:timers/promises';

/** True once every promise has settled; false if `ms` runs out first (an infinite `ms` waits). */
export async function allSettledWithin(promises: Array<Promise<unknown>>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = Number.isFinite(ms) ? [new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))] : [];
  try {
    return await Promise.race([Promise.allSettled(promises).then(() => true), ...timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `work` (CPU on this thread) done while `pending` (I/O, the model thread) is under way: one turn
 * of the event loop first, so the queries and messages `pending` started are out before `work`
 * takes the thread. Both results; `pending`'s rejection is thrown here, never left unhandled.
 */
export async function alongside<T, R>(pending: Promise<T>, work: () => R): Promise<[T, R]> {
  pending.catch(() => undefined);
  await nextTurn();
  const done = work();
  return [await pending, done];
}

/** What `withTimeout` rejects with; callers tell it apart by `code`, never by message text. */
export class TimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(message: string) {
    super(message);
    this.name = 'TimeoutError';
  }
}

export const isTimeoutError = (err: unknown): err is TimeoutError => err instanceof TimeoutError;

/** `promise`, or a TimeoutError (with `message`) if it has not settled within `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, message = `timed out after ${ms} ms`): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(message)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * One pass at a time over shared work (claim-and-start loops): a call while a pass runs joins it and
 * asks for one more pass, so work announced mid-pass is not missed. `pass` answers whether it ran to
 * the end (true) or stopped early (false: no further pass however often it was asked).
 */
export class SingleFlight {
  private running?: Promise<void>;
  private again = false;

  constructor(private readonly pass: () => Promise<boolean>) {}

  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** The pass under way, if any (to wait for it on shutdown). */
  get current(): Promise<void> | undefined {
    return this.running;
  }

  private async loop(): Promise<void> {
    let completed: boolean;
    do {
      this.again = false;
      completed = await this.pass();
    } while (completed && this.again);
  }
}

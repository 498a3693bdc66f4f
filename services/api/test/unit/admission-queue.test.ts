import { performance } from 'node:perf_hooks';
import { AdmissionQueue } from '../../src/middleware/admission-queue';

/**
 * The admission queue's policy on a fake clock: LIFO, refusal of the oldest on overflow, the short
 * wait once the queue stands (CoDel), and the hold after a refusal. The queue reads performance.now()
 * from node:perf_hooks, which jest's fake timers leave alone: it follows the fake Date instead.
 */
describe('AdmissionQueue', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
    jest.spyOn(performance, 'now').mockImplementation(() => Date.now());
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  /** A waiter that records what happened to it. */
  const log: string[] = [];
  beforeEach(() => log.splice(0));
  const join = (q: AdmissionQueue, name: string) =>
    q.enter(
      () => log.push(`admit ${name}`),
      () => log.push(`refuse ${name}`),
    );

  it('gives each freed slot to the newest waiter (LIFO)', () => {
    const q = new AdmissionQueue(3, 1000);
    join(q, 'a');
    join(q, 'b');
    join(q, 'c');
    q.admitNext();
    q.admitNext();
    expect(log).toEqual(['admit c', 'admit b']);
    expect(q.size).toBe(1);
  });

  it('takes nobody when it has no capacity', () => {
    const q = new AdmissionQueue(0, 1000);
    expect(join(q, 'a')).toBe(false);
    expect(log).toEqual([]);
  });

  it('refuses the oldest at once when it overflows, and keeps the newest', () => {
    const q = new AdmissionQueue(2, 1000);
    join(q, 'a');
    join(q, 'b');
    join(q, 'c');
    expect(log).toEqual(['refuse a']);
    q.admitNext();
    expect(log).toEqual(['refuse a', 'admit c']);
  });

  it('refuses a waiter after maxWaitMs on a queue that does not stand', () => {
    const q = new AdmissionQueue(5, 300);
    join(q, 'a');
    jest.advanceTimersByTime(299);
    expect(log).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(log).toEqual(['refuse a']);
    expect(q.size).toBe(0);
  });

  it('gives a waiter that joins within 100 ms of the queue filling the whole wait', () => {
    const q = new AdmissionQueue(5, 1000);
    join(q, 'a');
    jest.advanceTimersByTime(99);
    join(q, 'b');
    jest.advanceTimersByTime(500);
    expect(log).toEqual([]);
  });

  it('once the queue has stood 100 ms, lets a newcomer wait only 5 ms (CoDel), and refuses those past that wait with it', () => {
    const q = new AdmissionQueue(5, 1000);
    join(q, 'a');
    jest.advanceTimersByTime(100);
    join(q, 'b');
    jest.advanceTimersByTime(4);
    expect(log).toEqual([]);
    jest.advanceTimersByTime(1);
    // b's short wait ran out: overload, so a (waiting 105 ms) goes too.
    expect(log).toEqual(['refuse b', 'refuse a']);
  });

  it('keeps waiters that joined within the short wait when it refuses', () => {
    const q = new AdmissionQueue(2, 1000);
    join(q, 'a');
    jest.advanceTimersByTime(50);
    join(q, 'b');
    jest.advanceTimersByTime(3);
    join(q, 'c'); // overflow: a refused; b has waited 3 ms, under the 5 ms wait
    expect(log).toEqual(['refuse a']);
    expect(q.size).toBe(2);
  });

  it('takes nobody for one second after a refusal, then takes waiters again', () => {
    const q = new AdmissionQueue(1, 5000);
    join(q, 'a');
    join(q, 'b'); // overflow: a refused, the hold begins
    expect(log).toEqual(['refuse a']);
    expect(join(q, 'c')).toBe(false);
    jest.advanceTimersByTime(999);
    expect(join(q, 'd')).toBe(false);
    jest.advanceTimersByTime(1);
    q.admitNext(); // b
    expect(join(q, 'e')).not.toBe(false);
    q.admitNext();
    expect(log).toEqual(['refuse a', 'admit b', 'admit e']);
  });

  it('drops a waiter whose client left: it is neither admitted nor refused later', () => {
    const q = new AdmissionQueue(5, 300);
    const a = join(q, 'a');
    join(q, 'b');
    if (a) a.leave();
    q.admitNext();
    q.admitNext();
    jest.advanceTimersByTime(1000);
    expect(log).toEqual(['admit b']);
  });
});

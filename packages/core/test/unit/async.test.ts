import { alongside, isTimeoutError, SingleFlight, withTimeout } from '../../src/async';

describe('withTimeout', () => {
  it('passes a settled result through', async () => {
    await expect(withTimeout(Promise.resolve(7), 1000)).resolves.toBe(7);
    await expect(withTimeout(Promise.reject(new Error('own')), 1000)).rejects.toThrow('own');
  });

  it('rejects a promise that never settles with a TimeoutError carrying a code', async () => {
    const err = await withTimeout(new Promise(() => undefined), 5, 'the model took too long').catch((e: unknown) => e);
    expect(isTimeoutError(err)).toBe(true);
    expect(err).toMatchObject({ code: 'ETIMEDOUT', message: 'the model took too long' });
  });
});

describe('SingleFlight', () => {
  const deferred = () => {
    let resolve!: (v: boolean) => void;
    const promise = new Promise<boolean>((r) => (resolve = r));
    return { promise, resolve };
  };

  it('joins calls made during a pass and runs exactly one more pass for them', async () => {
    const gates = [deferred(), deferred()];
    let passes = 0;
    const flight = new SingleFlight(() => gates[passes++]!.promise);
    const first = flight.run();
    const joined = [flight.run(), flight.run()];
    expect(joined[0]).toBe(first);
    gates[0]!.resolve(true);
    await new Promise((r) => setImmediate(r));
    expect(passes).toBe(2);
    gates[1]!.resolve(true);
    await Promise.all([first, ...joined]);
    expect(passes).toBe(2);
    expect(flight.current).toBeUndefined();
  });

  it('does not repeat a pass that stopped early', async () => {
    let passes = 0;
    const gate = deferred();
    const flight = new SingleFlight(() => (passes++, gate.promise));
    const run = flight.run();
    void flight.run();
    gate.resolve(false);
    await run;
    expect(passes).toBe(1);
  });
});

describe('alongside', () => {
  it('does the work after what the pending promise started has run its first turn, and returns both results', async () => {
    const order: string[] = [];
    const pending = Promise.resolve().then(() => order.push('sent')).then(() => 'io');
    const [io, work] = await alongside(pending, () => (order.push('work'), 42));
    expect([io, work]).toEqual(['io', 42]);
    expect(order).toEqual(['sent', 'work']);
  });

  it("throws the pending promise's rejection, also when it rejects before the work is done, and never leaves it unhandled", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await expect(alongside(Promise.reject(new Error('lookup failed')), () => 1)).rejects.toThrow('lookup failed');
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

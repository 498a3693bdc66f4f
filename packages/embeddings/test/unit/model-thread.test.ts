import { performance } from 'node:perf_hooks';
import { modelThread } from '../../src/model-thread/model-thread';

/** Holds the event loop, as a request's statements do in embedded mode (PGlite runs on this thread). */
const hold = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('the model thread', () => {
  it("answers each call in a turn of the event loop of its own: a reply that arrives while another's caller holds the loop waits for the timers and sockets", async () => {
    // Each caller posts the next call, then holds the loop 20 ms (a flood's request: the next one's
    // embed, then this one's SQL): the worker answers meanwhile. Node hands a worker's messages over
    // in one go, those arriving meanwhile too, so without a turn of their own the callers would run
    // one after another and nothing else would, for as long as the replies kept coming.
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    const seen: number[] = [];
    const call = () => modelThread().run('a model nobody loaded', ['text']).then(() => 'answered', (err: Error) => err.message);
    let next = call();
    for (let i = 0; i < 5; i++) {
      expect(await next).toBe('model a model nobody loaded is not loaded');
      seen.push(ticks);
      next = call();
      hold(20);
    }
    await next;
    clearInterval(ticker);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1]!);
  });
});

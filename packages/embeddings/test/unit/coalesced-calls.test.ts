import { CoalescedCalls } from '../../src/coalesced-calls';

/** A model stand-in whose calls finish when the test says so. */
function gatedRun() {
  const calls: string[][] = [];
  const gates: Array<() => void> = [];
  const run = async (texts: string[]) => {
    calls.push(texts);
    await new Promise<void>((resolve) => gates.push(resolve));
    if (texts.includes('boom')) throw new Error('model failed');
    return texts.map((t) => t.toUpperCase());
  };
  const release = async () => {
    while (gates.length === 0) await new Promise((r) => setImmediate(r));
    gates.shift()!();
  };
  return { calls, run, release };
}

describe('CoalescedCalls', () => {
  it('starts a lone call at once, then batches what arrived meanwhile into the next call', async () => {
    const m = gatedRun();
    const calls = new CoalescedCalls(m.run);
    const first = calls.call('a');
    const rest = ['b', 'c', 'd'].map((t) => calls.call(t));
    expect(m.calls).toEqual([['a']]);
    await m.release();
    await m.release();
    expect(await first).toBe('A');
    expect(await Promise.all(rest)).toEqual(['B', 'C', 'D']);
    expect(m.calls).toEqual([['a'], ['b', 'c', 'd']]);
  });

  it('cuts waiting texts into batches of at most maxBatch', async () => {
    const m = gatedRun();
    const calls = new CoalescedCalls(m.run, 2);
    const all = ['a', 'b', 'c', 'd', 'e'].map((t) => calls.call(t));
    for (let i = 0; i < 3; i++) await m.release();
    expect(await Promise.all(all)).toEqual(['A', 'B', 'C', 'D', 'E']);
    expect(m.calls).toEqual([['a'], ['b', 'c'], ['d', 'e']]);
  });

  it('fails only the callers of a failed call, and serves on', async () => {
    const m = gatedRun();
    const calls = new CoalescedCalls(m.run);
    const first = calls.call('a');
    const failed = [calls.call('boom'), calls.call('b')];
    await m.release();
    await m.release();
    await expect(first).resolves.toBe('A');
    await expect(failed[0]).rejects.toThrow('model failed');
    await expect(failed[1]).rejects.toThrow('model failed');
    const after = calls.call('c');
    await m.release();
    await expect(after).resolves.toBe('C');
  });
});

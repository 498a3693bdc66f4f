const Sequencer = require('@jest/test-sequencer').default;

/** The process suites' projects (jest.config.ts): they run one at a time (test/process-suite.ts). */
const isProcessSuite = (test) => test.context.config.displayName?.name.startsWith('processes') ?? false;
/** npm test's --maxWorkers. */
const WORKERS = 2;
/** A file's expected run time (ms) before jest's cache has measured it. */
const guess = (test) => test.duration ?? (isProcessSuite(test) ? 30_000 : 10_000);

/**
 * jest's order (failed first, then slowest first), re-cut so the process suites run back to back
 * on one worker while the other works through ordinary files. jest hands the next file in this
 * order to whichever worker is free, and a process suite taken while another runs waits for its
 * lock: so the order is a simulation of that hand-out, with each file's last run time, that takes
 * a process suite only when the previous one has ended. A wrong guess costs time, never isolation
 * (the lock stays the guarantee).
 */
class ProcessSuitesBackToBack extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const suites = sorted.filter(isProcessSuite);
    const others = sorted.filter((t) => !isProcessSuite(t));
    if (suites.length === 0 || others.length === 0) return sorted;
    const freeAt = Array(WORKERS).fill(0);
    let lockFreeAt = 0;
    const out = [];
    while (suites.length || others.length) {
      const w = freeAt.indexOf(Math.min(...freeAt));
      const takeSuite = suites.length && (lockFreeAt <= freeAt[w] || !others.length);
      const test = takeSuite ? suites.shift() : others.shift();
      const start = takeSuite ? Math.max(freeAt[w], lockFreeAt) : freeAt[w];
      freeAt[w] = start + guess(test);
      if (takeSuite) lockFreeAt = freeAt[w];
      out.push(test);
    }
    return out;
  }
}

module.exports = ProcessSuitesBackToBack;

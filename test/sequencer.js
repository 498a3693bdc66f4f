/* global process */
const Sequencer = require('@jest/test-sequencer').default;
const durations = require('./durations.json');

/** The process suites' projects (jest.config.ts): they run one at a time (test/process-suite.ts). */
const isProcessSuite = (test) => test.context.config.displayName?.name.startsWith('processes') ?? false;
/** The run's --maxWorkers=N (npm test's is 2); 2 for any other form (a percentage, -w). */
const maxWorkersArg = Number(process.argv.find((a) => a.startsWith('--maxWorkers='))?.split('=')[1]);
const WORKERS = Number.isInteger(maxWorkersArg) && maxWorkersArg > 0 ? maxWorkersArg : 2;
/** `<project> <path from the repository root>`, the key of test/durations.json. */
const keyOf = (test) => `${test.context.config.displayName?.name} ${test.path.slice(test.context.config.rootDir.length + 1)}`;
/** Ordinary work between two process suites in the hand-out (ms): see the class's comment. */
const SUITE_MARGIN = (suiteMs) => suiteMs / 5 + 1000;
/**
 * A file's expected run time (ms): jest's own measure from this machine's last run, else the one
 * test/durations.json recorded on the reference machine (a fresh CI machine has no jest cache), else a guess.
 */
const expected = (test) => test.duration ?? (durations[keyOf(test)] ?? (isProcessSuite(test) ? 30 : 5)) * 1000;

/**
 * Longest first, so the run does not end waiting on one long file started last, re-cut so the
 * process suites run one after another, mostly on one worker, while the other works through ordinary files.
 * jest hands the next file in this order to whichever worker is free, and a process suite taken
 * while another runs waits for its lock: so the order is a simulation of that hand-out, with each
 * file's expected time, that takes a process suite only once the previous one has ended and a
 * margin more (a fifth of its expected time and a second), spent on ordinary files: a suite
 * that runs long then rarely leaves the other worker idle at the lock. The suites' chain is well
 * under the run's length, so the margins cost nothing. A wrong guess costs time, never isolation
 * (the lock stays the guarantee).
 */
class LongestFirstProcessSuitesBackToBack extends Sequencer {
  sort(tests) {
    // As jest does, the files that failed last time first; then longest first by what we know.
    super.sort(tests); // sets each test's duration from jest's cache
    const failed = new Set(tests.filter((t) => this.hasFailed(t)));
    const sorted = [...tests].sort((a, b) => Number(failed.has(b)) - Number(failed.has(a)) || expected(b) - expected(a));
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
      freeAt[w] = start + expected(test);
      if (takeSuite) lockFreeAt = freeAt[w] + SUITE_MARGIN(expected(test));
      out.push(test);
    }
    return out;
  }
}

module.exports = LongestFirstProcessSuitesBackToBack;

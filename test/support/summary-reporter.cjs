'use strict';
// Mocha's spec reporter, then the run's slowest test files (the time of their tests and hooks:
// where the suite's time goes), then the closing line CI reads:
// "N passed, N failed[, N skipped]".
// A file's time is the sum of its tests' and hooks' durations, which mocha reports the same way
// whether the files run one after another or in parallel (--parallel replays each file's events
// when it ends, so the time between them says nothing there).
const { relative } = require('node:path');
const Mocha = require('mocha');

const { Spec } = Mocha.reporters;
const { EVENT_RUN_BEGIN, EVENT_RUN_END, EVENT_TEST_END, EVENT_HOOK_END, EVENT_TEST_FAIL } =
  Mocha.Runner.constants;
const SLOWEST = 15;

class SummaryReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    /** @type {Map<string, number>} milliseconds by file */
    const byFile = new Map();
    let runBegan = Date.now();
    runner.once(EVENT_RUN_BEGIN, () => (runBegan = Date.now()));
    const count = (runnable) => {
      if (!runnable.file) return;
      const file = relative(process.cwd(), runnable.file);
      byFile.set(file, (byFile.get(file) ?? 0) + (runnable.duration ?? 0));
    };
    runner.on(EVENT_TEST_END, count);
    runner.on(EVENT_HOOK_END, count);
    // A hook that fails ends without EVENT_HOOK_END.
    runner.on(EVENT_TEST_FAIL, (runnable) => {
      if (runnable.type === 'hook') count(runnable);
    });
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = this.stats;
      const slowest = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST);
      if (byFile.size > 1) {
        const wall = (Date.now() - runBegan) / 1000;
        const files = [...byFile.values()].reduce((a, b) => a + b, 0) / 1000;
        process.stdout.write(
          `\nslowest of ${byFile.size} test files (${files.toFixed(0)} s of files in ${wall.toFixed(0)} s):\n`,
        );
        for (const [file, ms] of slowest) {
          process.stdout.write(`  ${(ms / 1000).toFixed(0).padStart(5)} s  ${file}\n`);
        }
        process.stdout.write('\n');
      }
      const skipped = pending > 0 ? `, ${pending} skipped` : '';
      process.stdout.write(`${passes} passed, ${failures} failed${skipped}\n`);
    });
  }
}

module.exports = SummaryReporter;

'use strict';
// Mocha's spec reporter, then the run's slowest test files (wall time of their top-level suites,
// hooks included: where the suite's time goes), then the closing line CI reads:
// "N passed, N failed[, N skipped]".
const { relative } = require('node:path');
const Mocha = require('mocha');

const { Spec } = Mocha.reporters;
const { EVENT_RUN_BEGIN, EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END } =
  Mocha.Runner.constants;
const SLOWEST = 15;

class SummaryReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    /** @type {Map<string, number>} milliseconds by file */
    const byFile = new Map();
    /** @type {Map<object, number>} */
    const began = new Map();
    let runBegan = Date.now();
    runner.once(EVENT_RUN_BEGIN, () => (runBegan = Date.now()));
    const topLevel = (suite) => suite.file && suite.parent && suite.parent.root;
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (topLevel(suite)) began.set(suite, Date.now());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      const start = began.get(suite);
      if (start === undefined) return;
      const file = relative(process.cwd(), suite.file);
      byFile.set(file, (byFile.get(file) ?? 0) + Date.now() - start);
    });
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = this.stats;
      const slowest = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST);
      if (byFile.size > 1) {
        const total = (Date.now() - runBegan) / 1000;
        process.stdout.write(
          `\nslowest of ${byFile.size} test files (${total.toFixed(0)} s in all):\n`,
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

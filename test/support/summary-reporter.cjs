'use strict';
// Mocha's spec reporter plus the closing line CI reads: "N passed, N failed[, N skipped]".
const Mocha = require('mocha');

const { Spec } = Mocha.reporters;
const { EVENT_RUN_END } = Mocha.Runner.constants;

class SummaryReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = this.stats;
      const skipped = pending > 0 ? `, ${pending} skipped` : '';
      process.stdout.write(`${passes} passed, ${failures} failed${skipped}\n`);
    });
  }
}

module.exports = SummaryReporter;

/** A run of conversation tests: each test passed or failed, and each failure in the test's words. */
import type { TestRun } from '../../api/types.ts';

export interface RunResultsProps {
  run: Pick<TestRun, 'passed' | 'failed' | 'tests'>;
  /** Announce the counts (`role="status"`); off inside an alert, which announces itself. */
  announce?: boolean;
}

export function RunResults({ run, announce = true }: RunResultsProps) {
  return (
    <div className="test-run">
      <p role={announce ? 'status' : undefined}>
        {run.tests.length === 0
          ? 'This bot has no tests.'
          : `${run.passed} passed, ${run.failed} failed.`}
      </p>
      <ul aria-label="Test results">
        {run.tests.map((test) => (
          <li key={test.name}>
            <strong className={test.passed ? '' : 'problem-text'}>
              {test.passed ? 'Passed' : 'Failed'}: {test.name}
            </strong>
            {test.failures.length > 0 && (
              <ul>
                {test.failures.map((f, i) => (
                  // The message says what was expected and what the bot did; the step places it.
                  <li key={i} title={f.where}>
                    Step {f.step + 1}: {f.message}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * A run's results as JUnit XML, which CI systems (GitHub Actions, GitLab, Jenkins) read: one
 * testsuite per run, one testcase per test, failed with every failed expectation of it, a line
 * each (junit-report-builder writes and escapes the XML).
 */
import junitModule, { type Builder } from 'junit-report-builder';
import type { TestRunResult } from '../../shared/flows/conversation-test-types.ts';

// A CommonJS module whose types declare an ES default export: Node hands the builder itself.
const junit = junitModule as unknown as Builder;

export function junitXml(suiteName: string, run: TestRunResult): string {
  const builder = junit.newBuilder();
  const suite = builder.testSuite().name(suiteName);
  for (const test of run.tests) {
    const testCase = suite
      .testCase()
      .className(suiteName)
      .name(test.name)
      .time(test.duration_ms / 1000);
    if (!test.passed) {
      testCase.failure(
        test.failures.map((f) => `${f.where}: ${f.message}`).join('\n'),
        'expectation',
      );
    }
  }
  return builder.build();
}

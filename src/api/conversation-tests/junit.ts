/**
 * A run's results as JUnit XML, which CI systems (GitHub Actions, GitLab, Jenkins) read: one
 * testsuite per run, one testcase per test, failed with every failed expectation of it, a line
 * each (junit-report-builder writes and escapes the XML, loaded at the first report, not with the
 * api).
 */
import type { Builder } from 'junit-report-builder';
import type { TestRunResult } from '../../shared/flows/conversation-test-types.ts';

export async function junitXml(suiteName: string, run: TestRunResult): Promise<string> {
  // A CommonJS module whose types declare an ES default export: Node hands the builder itself.
  const junit = (await import('junit-report-builder')).default as unknown as Builder;
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

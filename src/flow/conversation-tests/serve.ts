/**
 * flow's side of the conversation-test queue (`src/shared/flows/conversation-test-queue.ts`): a
 * BullMQ worker that runs each job's tests with this process's understanding and pattern thread.
 * One run at a time: the process's live turns come first.
 */
import { Worker } from 'bullmq';
import {
  TEST_QUEUE,
  testJobsPrefix,
  type TestQueueSettings,
} from '../../shared/flows/conversation-test-queue.ts';
import type { TestRunRequest, TestRunResult } from '../../shared/flows/conversation-test-types.ts';
import { jobsConnection } from '../../shared/jobs-connection.ts';
import { runTests, type TestDeps } from './run-test.ts';

/** Runs test jobs until the returned close is called. */
export function serveConversationTests(
  settings: TestQueueSettings,
  deps: TestDeps,
): { close(): Promise<void> } {
  const jobs = jobsConnection(settings.redisUrl, settings.redisTlsCa, 'test-jobs');
  const worker = new Worker<TestRunRequest, TestRunResult>(
    TEST_QUEUE,
    async (job) => runTests(deps, job.data),
    { connection: jobs.connection, prefix: testJobsPrefix(settings.streamPrefix), concurrency: 1 },
  );
  worker.on('error', (error) => deps.log.warn({ err: error }, 'test job queue error'));
  worker.on('failed', (job, error) =>
    deps.log.warn({ err: error, job: job?.id }, 'a conversation test run failed'),
  );
  return {
    async close() {
      try {
        await worker.close();
      } finally {
        await jobs.close();
      }
    },
  };
}

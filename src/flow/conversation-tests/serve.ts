/**
 * flow's side of the conversation-test queue (`src/shared/flows/conversation-test-queue.ts`): a
 * BullMQ worker that runs each job's tests with this process's understanding and pattern thread.
 */
import { Worker } from 'bullmq';
import type { Config } from '../../config.ts';
import { TEST_QUEUE, testJobsPrefix } from '../../shared/flows/conversation-test-queue.ts';
import type { TestRunRequest, TestRunResult } from '../../shared/flows/conversation-test-types.ts';
import { jobsConnection } from '../../shared/jobs-connection.ts';
import { runTests, type TestDeps } from './run-test.ts';

/** Runs test jobs until the returned close is called. */
export function serveConversationTests(config: Config, deps: TestDeps): { close(): Promise<void> } {
  const jobs = jobsConnection(config.redisUrl, config.redisTlsCa, 'test-jobs');
  const worker = new Worker<TestRunRequest, TestRunResult>(
    TEST_QUEUE,
    async (job) => runTests(deps, job.data),
    {
      connection: jobs.connection,
      prefix: testJobsPrefix(config.stream.prefix),
      concurrency: 2,
    },
  );
  worker.on('error', (error) => deps.log.warn({ err: error.message }, 'test job queue error'));
  return {
    async close() {
      await worker.close();
      await jobs.close();
    },
  };
}

/**
 * Where conversation tests are run: the api adds a job to this BullMQ queue and waits for its
 * result; flow runs it on its engine (`src/flow/conversation-tests/serve.ts`), where the model that
 * scores free text and the pattern thread already live. A run no flow process takes in time is
 * removed and refused as unavailable, so it never runs after its caller gave up.
 */
import { Queue, QueueEvents } from 'bullmq';
import { BotwireError } from '../errors.ts';
import { jobsConnection } from '../jobs-connection.ts';
import type { TestRunRequest, TestRunResult } from './conversation-test-types.ts';

export const TEST_QUEUE = 'conversation-tests';

/** BullMQ's key prefix for the runs: the hash tag keeps the queue's keys in one cluster slot. */
export function testJobsPrefix(streamPrefix: string): string {
  return `${streamPrefix}:{flow-tests}`;
}

export interface TestQueueSettings {
  redisUrl: string;
  redisTlsCa?: string;
  streamPrefix: string;
}

/** The api's side: asks for runs and waits for their results. */
export class ConversationTestQueue {
  readonly #jobs: ReturnType<typeof jobsConnection>;
  readonly #queue: Queue<TestRunRequest, TestRunResult>;
  readonly #events: QueueEvents;

  constructor(settings: TestQueueSettings) {
    this.#jobs = jobsConnection(settings.redisUrl, settings.redisTlsCa, 'test-jobs');
    const options = {
      connection: this.#jobs.connection,
      prefix: testJobsPrefix(settings.streamPrefix),
    };
    this.#queue = new Queue(TEST_QUEUE, {
      ...options,
      defaultJobOptions: {
        attempts: 1,
        removeOnComplete: { age: 3600, count: 100 },
        removeOnFail: { age: 24 * 3600, count: 100 },
      },
    });
    this.#events = new QueueEvents(TEST_QUEUE, options);
  }

  /**
   * The tests' results, run by a flow process.
   * @throws BotwireError `BW_ERR_TESTS_UNAVAILABLE` when no flow process finished the run within
   *   `timeoutMs`, or the run itself failed
   */
  async run(request: TestRunRequest, timeoutMs: number): Promise<TestRunResult> {
    await this.#events.waitUntilReady();
    const job = await this.#queue.add('run', request);
    try {
      return await job.waitUntilFinished(this.#events, timeoutMs);
    } catch (error) {
      await job.remove().catch(() => undefined); // a run still waiting never starts after this
      throw new BotwireError(
        'BW_ERR_TESTS_UNAVAILABLE',
        `the conversation tests could not be run: ${(error as Error).message}`,
      );
    }
  }

  async close(): Promise<void> {
    await this.#events.close();
    await this.#queue.close();
    await this.#jobs.close();
  }
}

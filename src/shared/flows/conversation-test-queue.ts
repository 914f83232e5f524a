/**
 * Where conversation tests are run: the api adds a job to this BullMQ queue and waits for its
 * result; flow runs it on its engine (`src/flow/conversation-tests/serve.ts`), where the model that
 * scores free text and the pattern thread already live. A run no flow process finished in time is
 * refused as unavailable and removed from the queue when it has not started (one already running
 * ends on its own; its result is dropped).
 */
import { randomUUID } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import { BotwireError } from '../errors.ts';
import { jobsConnection } from '../jobs-connection.ts';
import { withDeadline } from '../deadline.ts';
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

/**
 * The api's side: asks for runs and waits for their results. Its connections open at the first
 * run, so an api that never runs a test holds none (and a Redis outage has nothing of it to close).
 */
export class ConversationTestQueue {
  readonly #settings: TestQueueSettings;
  #open:
    | {
        jobs: ReturnType<typeof jobsConnection>;
        queue: Queue<TestRunRequest, TestRunResult>;
        events: QueueEvents;
      }
    | undefined;

  constructor(settings: TestQueueSettings) {
    this.#settings = settings;
  }

  #opened() {
    if (this.#open) return this.#open;
    const { redisUrl, redisTlsCa, streamPrefix } = this.#settings;
    const jobs = jobsConnection(redisUrl, redisTlsCa, 'test-jobs');
    const options = { connection: jobs.connection, prefix: testJobsPrefix(streamPrefix) };
    const queue = new Queue<TestRunRequest, TestRunResult>(TEST_QUEUE, {
      ...options,
      // A result is read once, at once: kept a minute (the job's hash answers a caller that
      // missed the event), and few events kept (each holds a whole result).
      defaultJobOptions: {
        attempts: 1,
        removeOnComplete: { age: 60 },
        removeOnFail: { age: 24 * 3600, count: 100 },
      },
      streams: { events: { maxLen: 100 } },
    });
    const events = new QueueEvents(TEST_QUEUE, options);
    this.#open = { jobs, queue, events };
    return this.#open;
  }

  /**
   * The tests' results, run by a flow process.
   * @throws BotwireError `BW_ERR_TESTS_UNAVAILABLE` when no flow process finished the run within
   *   `timeoutMs` (the whole of it: connecting, queueing and running), or the run itself failed
   */
  async run(request: TestRunRequest, timeoutMs: number): Promise<TestRunResult> {
    const { queue, events } = this.#opened();
    const jobId = randomUUID();
    const until = Date.now() + timeoutMs;
    const ran = async () => {
      await events.waitUntilReady();
      const job = await queue.add('run', request, { jobId });
      return job.waitUntilFinished(events, Math.max(1, until - Date.now()));
    };
    try {
      return await withDeadline(ran(), timeoutMs, 'the conversation test run');
    } catch (error) {
      // A run not started yet never starts after this; one a flow process holds ends on its own.
      await queue.remove(jobId).catch(() => undefined);
      throw new BotwireError(
        'BW_ERR_TESTS_UNAVAILABLE',
        `the conversation tests could not be run: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  async close(): Promise<void> {
    const open = this.#open;
    if (!open) return;
    this.#open = undefined;
    await open.events.close();
    await open.queue.close();
    await open.jobs.close();
  }
}

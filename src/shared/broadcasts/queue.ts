/**
 * Where broadcasts run (docs/outbound.md): the api adds a job to this BullMQ queue when a
 * broadcast is to start (delayed until its start time) or is resumed; a `channel` process runs it
 * (`src/channel/broadcasts/`), holding it while it works and giving it up if it dies, when
 * another process takes it on. What is sent and what is left is kept in Postgres, per recipient,
 * so the job itself carries only the broadcast's id.
 */
import { Queue } from 'bullmq';
import { jobsConnection } from '../jobs-connection.ts';

export const BROADCAST_QUEUE = 'broadcasts';

/** BullMQ's key prefix for broadcasts: the hash tag keeps the queue's keys in one cluster slot. */
export function broadcastJobsPrefix(streamPrefix: string): string {
  return `${streamPrefix}:{broadcasts}`;
}

export interface BroadcastJob {
  broadcast_id: string;
  /** The start that added the job: a broadcast started again since runs under the newer one only. */
  start?: string;
}

export interface BroadcastQueueSettings {
  redisUrl: string;
  redisTlsCa?: string;
  streamPrefix: string;
}

/**
 * The api's side: starts broadcasts. Its connections open at the first start, so an api that never
 * starts one holds none.
 */
export class BroadcastQueue {
  readonly #settings: BroadcastQueueSettings;
  #open: { jobs: ReturnType<typeof jobsConnection>; queue: Queue<BroadcastJob> } | undefined;

  constructor(settings: BroadcastQueueSettings) {
    this.#settings = settings;
  }

  #opened() {
    if (this.#open) return this.#open;
    const { redisUrl, redisTlsCa, streamPrefix } = this.#settings;
    const jobs = jobsConnection(redisUrl, redisTlsCa, 'broadcast-jobs');
    const queue = new Queue<BroadcastJob>(BROADCAST_QUEUE, {
      connection: jobs.connection,
      prefix: broadcastJobsPrefix(streamPrefix),
      defaultJobOptions: {
        // A run that fails (Postgres away) is tried again; the recipients' rows say where it was.
        attempts: 20,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: true,
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    });
    this.#open = { jobs, queue };
    return this.#open;
  }

  /**
   * Runs the broadcast from `at` on. `run` names this start (a broadcast resumed is started
   * again under a new one): a start already queued under the same name is not added twice.
   */
  async start(broadcastId: string, run: string, at: Date): Promise<void> {
    const { queue } = this.#opened();
    await queue.add(
      'run',
      { broadcast_id: broadcastId, start: run },
      { jobId: `${broadcastId}-${run}`, delay: Math.max(0, at.getTime() - Date.now()) },
    );
  }

  async close(): Promise<void> {
    const open = this.#open;
    if (!open) return;
    this.#open = undefined;
    await open.queue.close();
    await open.jobs.close();
  }
}

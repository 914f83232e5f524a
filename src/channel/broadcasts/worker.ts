/**
 * `channel`'s side of the broadcast queue (`shared/broadcasts/queue.ts`): a BullMQ worker that
 * runs broadcasts, several at once so that one bot's broadcast never waits for another's. A job
 * is held while it runs (BROADCAST_LOCK_MS, renewed by BullMQ); a process that dies gives it up
 * after that long, and a process still running takes it on where the rows say it stopped. A
 * process that stops (SIGTERM) lets its calls under way end and hands its runs back at once.
 */
import { DelayedError, Worker } from 'bullmq';
import { jobsConnection } from '../../shared/jobs-connection.ts';
import {
  BROADCAST_QUEUE,
  broadcastJobsPrefix,
  type BroadcastJob,
} from '../../shared/broadcasts/queue.ts';
import { runBroadcast, type RunnerDeps } from './runner.ts';

/** Broadcasts one process runs at once. */
const BROADCASTS_AT_ONCE = 8;

export interface BroadcastWorkerSettings {
  redisUrl: string;
  redisTlsCa?: string;
  streamPrefix: string;
  lockMs: number;
}

export function startBroadcastWorker(
  settings: BroadcastWorkerSettings,
  deps: RunnerDeps,
): { close(): Promise<void> } {
  const jobs = jobsConnection(settings.redisUrl, settings.redisTlsCa, 'broadcast-worker');
  const stopping = new AbortController();
  const worker = new Worker<BroadcastJob>(
    BROADCAST_QUEUE,
    async (job, token) => {
      const { broadcast_id: id, start } = job.data;
      const ended = await runBroadcast(deps, { id, start }, stopping.signal);
      if (ended === 'ended') return;
      // This process is stopping: the run goes back to the queue for another to take on at once.
      // Waiting for the messaging limit: back until there is room.
      await job.moveToDelayed(
        ended === 'interrupted' ? Date.now() : ended.waitUntil.getTime(),
        token,
      );
      throw new DelayedError();
    },
    {
      connection: jobs.connection,
      prefix: broadcastJobsPrefix(settings.streamPrefix),
      concurrency: BROADCASTS_AT_ONCE,
      lockDuration: settings.lockMs,
      stalledInterval: settings.lockMs,
      // A broadcast outlives any number of dead processes: its rows say where it was.
      maxStalledCount: 1_000_000,
    },
  );
  worker.on('failed', (job, error) =>
    deps.log.warn(
      { broadcastId: job?.data.broadcast_id, err: error.message },
      'a broadcast run failed; it is tried again',
    ),
  );
  worker.on('error', (error) => deps.log.warn({ err: error.message }, 'broadcast worker error'));
  return {
    close: async () => {
      // The runs stop picking; the calls under way end (one send timeout at most).
      stopping.abort();
      await worker.close();
      await jobs.close();
    },
  };
}

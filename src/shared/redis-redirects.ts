/**
 * Redirections followed inside a Redis Cluster connection's pipelines.
 *
 * ioredis (6.0) puts the commands of an auto-pipeline together by node, not by slot. After a slot
 * has moved (a failover, a reshard), a batch sent to the slot's former master gets `MOVED` (or,
 * mid-migration, `ASK`) for the moved slot's commands while the others run. ioredis retries a
 * pipeline only when every failure is the same redirection and every command that ran was a read;
 * otherwise it hands the `MOVED` to the caller as if it were an outage, and keeps routing the slot
 * to the former master (redis/ioredis#2075). The edge answered such callbacks 503 and the
 * platforms sent them again.
 *
 * Here each redirected command is sent again on its own, in order, through the cluster's
 * single-command path, which follows `MOVED` and `ASK` itself and refreshes the slot map. A
 * redirected command did not run, so sending it again runs it once. A batch that ioredis refuses
 * outright after a redirection ("All keys in the pipeline should belong to the same slots
 * allocation group") ran none of its writes (ioredis retries only batches whose commands that ran
 * were reads), so each of its commands is sent again the same way. Transactions are left as
 * ioredis gives them: their commands cannot be sent apart; so is a pipeline with a `WAIT`, which
 * must go to the node that took its writes (its caller follows it, src/shared/replica-wait.ts).
 */
import { Command, type Cluster } from 'ioredis';

/** Whether a Redis answer is a cluster redirection: the command did not run on that node. */
export function isRedirect(error: unknown): boolean {
  return error instanceof Error && /^(MOVED|ASK) /.test(error.message);
}

const UNGROUPABLE = /should belong to the same slots allocation group/;

/** What of a queued command is read here (ioredis's `Command`). */
interface QueuedCommand {
  name: string;
  args: unknown[];
  ignore?: boolean;
  inTransaction?: boolean;
  replyEncoding?: BufferEncoding | null;
}

/** The parts of ioredis's `Pipeline` read here; `_queue` and `_shaToScript` are its own fields. */
interface PipelineParts {
  exec(callback?: (error: Error | null, results?: unknown) => void): Promise<unknown>;
  _queue: QueuedCommand[];
  _shaToScript: Record<
    string,
    { execute(container: unknown, args: unknown[], options: object): Promise<unknown> }
  >;
}

type Result = [Error | null, unknown];

/** Sends `command` again on its own; its answer as a pipeline gives it. */
async function resend(
  cluster: Cluster,
  pipeline: PipelineParts,
  command: QueuedCommand,
): Promise<Result> {
  const options = { replyEncoding: command.replyEncoding ?? null };
  try {
    const script =
      command.name === 'evalsha' ? pipeline._shaToScript[String(command.args[0])] : undefined;
    const value = script
      ? await script.execute(cluster, command.args.slice(1), options)
      : await cluster.sendCommand(new Command(command.name, command.args as string[], options));
    return [null, value];
  } catch (error) {
    return [error as Error, null];
  }
}

/** The answers of a pipeline, its redirected commands sent again. */
async function followed(
  cluster: Cluster,
  pipeline: PipelineParts,
  outcome: Promise<unknown>,
): Promise<Result[]> {
  // ioredis leaves the ASKING it adds out of the answers.
  const commands = pipeline._queue.filter((command) => !command.ignore);
  // A WAIT speaks of the writes its connection sent before it: sending one of them elsewhere
  // would make its answer about the wrong node. The caller follows such a pipeline itself, and a
  // transaction's commands cannot be sent apart: both are answered as ioredis answers them.
  if (commands.some((command) => command.inTransaction || command.name.toLowerCase() === 'wait'))
    return (await outcome) as Result[];
  let results: Result[];
  try {
    results = (await outcome) as Result[];
  } catch (error) {
    if (!UNGROUPABLE.test(String((error as Error).message))) throw error;
    results = commands.map(() => [error as Error, null]);
  }
  const regroup = results.every(([error]) => error && UNGROUPABLE.test(error.message));
  const out: Result[] = [];
  for (const [i, result] of results.entries()) {
    const again = regroup || isRedirect(result[0]);
    out.push(again && commands[i] ? await resend(cluster, pipeline, commands[i]) : result);
  }
  return out;
}

/**
 * Makes every pipeline of `cluster` (its auto-pipelines included) follow redirections as the
 * module's comment says. Call once, as the connection is made.
 */
export function followRedirects(cluster: Cluster): Cluster {
  const makePipeline = cluster.pipeline.bind(cluster);
  cluster.pipeline = (...args: Parameters<Cluster['pipeline']>) => {
    const pipeline = makePipeline(...args) as unknown as PipelineParts;
    const exec = pipeline.exec.bind(pipeline);
    let first = true;
    pipeline.exec = (callback) => {
      // ioredis's own retries of the batch call exec again: those go through unchanged.
      if (!first) return exec();
      first = false;
      const answers = followed(cluster, pipeline, exec());
      if (callback)
        answers.then(
          (results) => callback(null, results),
          (error: Error) => callback(error),
        );
      return answers;
    };
    return pipeline as unknown as ReturnType<Cluster['pipeline']>;
  };
  return cluster;
}

/**
 * Matches waits' patterns off the flow process's main thread, each with a deadline, so that no
 * operator's pattern can hold up the turns of other bots. Patterns are RE2 (linear time, see
 * `src/shared/flows/pattern.ts`); the thread bounds what linear still costs in JavaScript.
 *
 * One thread, one match at a time: the waiting matches of each bot in the order asked, the bots
 * taking turns (round-robin), so a bot whose answers run to the deadline one after another delays
 * another bot's match by one match at most, not by its whole queue. A match that outlives
 * `timeoutMs` counts as not accepted (the user is asked again) and its thread is terminated; the
 * next match starts a new one. A thread that dies the same way fails only the match it was running.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from '../shared/logger.ts';
import { workerBootstrap } from '../shared/worker-thread.ts';

const BOOTSTRAP = workerBootstrap(new URL('./pattern-worker.ts', import.meta.url));

/** How one match ended. `timeout`: stopped at the deadline, taken as not accepted. */
export type PatternOutcome = 'accepted' | 'refused' | 'timeout';

export interface PatternMatcherOptions {
  /** Longest one match may run (ms). @defaultValue 250 */
  timeoutMs?: number;
  logger: Logger;
}

interface Job {
  pattern: string;
  text: string;
  settle: (outcome: PatternOutcome) => void;
}

export class PatternMatcher {
  readonly #timeoutMs: number;
  readonly #logger: Logger;
  /** Waiting matches per bot; the bot served next is first (Map order). */
  readonly #queues = new Map<string, Job[]>();
  /** The bot whose match ran last. */
  #served: string | undefined;
  #worker: { worker: Worker; ready: Promise<void> } | undefined;
  #running = false;
  #ids = 0;
  #closed = false;

  constructor(options: PatternMatcherOptions) {
    this.#timeoutMs = options.timeoutMs ?? 250;
    this.#logger = options.logger;
  }

  /**
   * Whether `pattern` accepts `text` (trimmed, at most 1024 characters), within the deadline.
   * @param bot whose match it is (its app id): bots take turns. @defaultValue one bot for all
   */
  test(pattern: string, text: string, bot = ''): Promise<PatternOutcome> {
    if (this.#closed) return Promise.resolve('timeout');
    return new Promise((settle) => {
      const queue = this.#queues.get(bot);
      if (queue) queue.push({ pattern, text, settle });
      else this.#queues.set(bot, [{ pattern, text, settle }]);
      this.#next();
    });
  }

  /**
   * The next match: the oldest of the first bot waiting that was not served last (the one served
   * last only when no other waits), that bot then going last.
   */
  #take(): Job | undefined {
    let bot: string | undefined;
    for (const waiting of this.#queues.keys()) {
      bot ??= waiting;
      if (waiting !== this.#served) {
        bot = waiting;
        break;
      }
    }
    if (bot === undefined) return undefined;
    const queue = this.#queues.get(bot)!;
    const job = queue.shift();
    this.#queues.delete(bot);
    if (queue.length > 0) this.#queues.set(bot, queue);
    this.#served = bot;
    return job;
  }

  #next(): void {
    if (this.#running || this.#closed) return;
    const job = this.#take();
    if (!job) return;
    this.#running = true;
    const { worker, ready } = this.#thread();
    const id = (this.#ids += 1);
    let timer: NodeJS.Timeout | undefined;
    const done = (outcome: PatternOutcome): void => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      this.#running = false;
      job.settle(outcome);
      this.#next();
    };
    const onMessage = (reply: { id?: number; accepted?: boolean }): void => {
      if (reply.id === id) done(reply.accepted ? 'accepted' : 'refused');
    };
    const onExit = (): void => {
      if (this.#worker?.worker === worker) this.#worker = undefined;
      done('timeout');
    };
    worker.on('message', onMessage);
    worker.on('exit', onExit);
    void ready.then(() => {
      if (!this.#running || this.#closed) return;
      timer = setTimeout(() => {
        this.#logger.warn(
          { pattern: job.pattern, chars: job.text.length, timeoutMs: this.#timeoutMs },
          'a wait pattern ran past its deadline; the answer is refused and its thread replaced',
        );
        if (this.#worker?.worker === worker) this.#worker = undefined;
        worker.off('exit', onExit);
        void worker.terminate();
        done('timeout');
      }, this.#timeoutMs);
      worker.postMessage({ id, pattern: job.pattern, text: job.text });
    });
  }

  #thread(): { worker: Worker; ready: Promise<void> } {
    if (this.#worker) return this.#worker;
    const worker = new Worker(BOOTSTRAP, { eval: true, execArgv: [] });
    worker.on('error', (error) => this.#logger.warn({ err: error }, 'the pattern thread failed'));
    worker.unref();
    const ready = new Promise<void>((resolve) => {
      const onReady = (message: { ready?: boolean }): void => {
        if (!message.ready) return;
        worker.off('message', onReady);
        resolve();
      };
      worker.on('message', onReady);
    });
    this.#worker = { worker, ready };
    return this.#worker;
  }

  /** Stops the thread; waiting matches count as timed out. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const queue of this.#queues.values()) for (const job of queue) job.settle('timeout');
    this.#queues.clear();
    const thread = this.#worker;
    this.#worker = undefined;
    await thread?.worker.terminate();
  }
}

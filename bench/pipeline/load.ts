/**
 * The simulated users of the pipeline bench and the ledger of their turns.
 *
 * Load is offered open-loop at a fixed rate: turn k goes to user k mod U as that user's message
 * number floor(k / U), with the text `u<user>-<seq>`, whether or not earlier turns were answered,
 * so a slow pipeline shows as latency and backlog instead of slowing the users down. One user's
 * callback POSTs go out one after another (the next once the edge has answered the previous), as
 * Telegram does for one chat: otherwise two POSTs of one chat could overtake each other on the way
 * in and the bench would count the reorder against the pipeline.
 *
 * A turn's latency runs from when the generator issues its POST to when the reply `echo: <text>`
 * for that chat is seen: by the stand-in Telegram platform as a `sendMessage`, or on the web
 * visitor's event stream (./web.ts). How a turn is posted is the `request` option: Telegram's
 * update by default.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SentMessage } from './platform.ts';

/** One simulated user: a chat of one bot. */
export interface User {
  /** Telegram's chat id, or the web visitor id. */
  chatId: number | string;
  /** The bot's callback path, `/v2/callback/<platform>/<app_id>`. */
  path: string;
  /** The bot's webhook secret token, or the web visitor's token. */
  secret: string;
}

/** A turn's callback POST: its body and the headers beside content-type and content-length. */
export type TurnRequest = (
  user: User,
  text: string,
  updateId: number,
) => { body: string; headers: Record<string, string> };

/** A Telegram update with the text, as Telegram posts it to the webhook. */
export const telegramRequest: TurnRequest = (user, text, updateId) => ({
  body: JSON.stringify({
    update_id: updateId,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: { id: user.chatId, type: 'private' },
      from: { id: user.chatId, first_name: 'Bench' },
      text,
    },
  }),
  headers: { 'x-telegram-bot-api-secret-token': user.secret },
});

/** 503 answers a turn is retried after, at most, before it counts as refused. */
const MAX_DEFERRALS = 30;

interface Turn {
  user: number;
  seq: number;
  chatId: string;
  text: string;
  /** `performance.now()` when the POST was issued. */
  sentAt: number;
  /** Issued inside the measured window. */
  measured: boolean;
  /** The edge answered the POST with 2xx. */
  accepted: boolean;
  /** `performance.now()` when the edge accepted it (after any 503s). */
  acceptedAt?: number;
  /** The POST failed or was answered with anything but 2xx (503 only after the last retry). */
  refused: boolean;
  /** The platform update id, kept across retries as a platform keeps it. */
  updateId?: number;
  /** 503 answers (backpressure) so far; each is retried after Retry-After. */
  deferrals: number;
  replies: number;
  repliedAt?: number;
}

/**
 * Sleeps until `at` (a `performance.now()` time), at least 1 ms: an open-loop generator wakes when
 * its next turn is due, not every millisecond.
 */
const sleepUntil = (at: number): Promise<void> => sleep(Math.max(1, at - performance.now()));

/** When turn `k` of a run that started at `start` is due, at `rate` per second. */
const dueAt = (start: number, rate: number, k: number): number => start + ((k + 1) * 1000) / rate;

interface UserLine {
  busy: boolean;
  queue: Turn[];
}

export interface LoadOptions {
  origin: URL;
  users: readonly User[];
  /** Turns offered per second, in total. */
  rate: number;
  /** Most keep-alive connections to the edge. */
  connections: number;
  /** Turns issued but not yet answered by the edge beyond which new turns are not offered. */
  maxBacklog: number;
  /** How a turn is posted. @defaultValue telegramRequest */
  request?: TurnRequest;
  /**
   * Which of several loads on the same users this is (a capacity sweep's rates): from round 1 on,
   * texts are `u<user>-<round>.<seq>` and update ids start 10 million further, so that no turn
   * repeats an earlier load's text or update id (the edge would drop it as a duplicate).
   * @defaultValue 0
   */
  round?: number;
}

/** What a run came to; times are `performance.now()` values, durations in ms. */
export interface LoadResult {
  windowMs: number;
  /** Turns issued in the measured window. */
  measuredTurns: number;
  /** Latencies of the measured turns that were answered, sorted ascending (ms). */
  latencies: number[];
  /** First replies that arrived inside the measured window (any turn). */
  repliesInWindow: number;
  /** Every turn issued, warm-up included. */
  issued: number;
  /** Turns not offered because the backlog was full. */
  skipped: number;
  /** Callback POSTs that failed or were answered with anything but 2xx (and 503 past the retries). */
  refused: number;
  /** 503 answers (the edge's backpressure), each retried after its Retry-After, as a platform does. */
  deferred: number;
  /** Turns the edge accepted with no reply by the end of the grace period. */
  lost: number;
  /** Turns still being deferred by the edge's backpressure at the end (waiting at the "platform"). */
  stillDeferred: number;
  /** Of `lost`, turns the edge accepted in the last 5 s before the end: late rather than lost. */
  lostRecent: number;
  /** Latencies from acceptance by the edge to the reply, of measured turns that were deferred (ms, sorted). */
  afterAcceptance: number[];
  /** Replies beyond the first for a text. */
  duplicated: number;
  /** Replies that arrived after a reply to a later message of the same chat. */
  outOfOrder: number;
  /** `sendMessage` calls for no known turn, or for the wrong chat. */
  unknown: number;
  /** Replies counted, first replies and duplicates. */
  replies: number;
}

export class Load {
  readonly #o: LoadOptions;
  readonly #agent: Agent;
  readonly #turns = new Map<string, Turn>();
  readonly #lines: UserLine[];
  /** Per chat: the highest message number replied to so far. */
  readonly #lastReplied = new Map<string, number>();
  readonly #replyTimes: number[] = [];
  /** Turn number k of the next turn: user k mod U, that user's message number floor(k / U). */
  #next = 0;
  #updateId: number;
  #backlog = 0;
  #unanswered = 0;
  #window = { start: Infinity, end: Infinity };
  #counts = {
    issued: 0,
    skipped: 0,
    refused: 0,
    deferred: 0,
    duplicated: 0,
    outOfOrder: 0,
    unknown: 0,
  };
  #replies = 0;

  constructor(options: LoadOptions) {
    this.#o = options;
    this.#updateId = 1_000_000 + (options.round ?? 0) * 10_000_000;
    this.#agent = new Agent({ keepAlive: true, maxSockets: options.connections });
    this.#lines = options.users.map(() => ({ busy: false, queue: [] }));
  }

  /** Accounts one reply seen: a `sendMessage` at the stand-in platform, or a web event. */
  onReply(sent: SentMessage): void {
    this.#replies += 1;
    const turn = sent.text.startsWith('echo: ') ? this.#turns.get(sent.text.slice(6)) : undefined;
    if (!turn || turn.chatId !== sent.chatId) {
      this.#counts.unknown += 1;
      return;
    }
    turn.replies += 1;
    if (turn.replies > 1) {
      this.#counts.duplicated += 1;
      return;
    }
    turn.repliedAt = sent.at;
    this.#replyTimes.push(sent.at);
    if (turn.accepted) this.#unanswered -= 1;
    const last = this.#lastReplied.get(turn.chatId) ?? -1;
    if (turn.seq < last) this.#counts.outOfOrder += 1;
    else this.#lastReplied.set(turn.chatId, turn.seq);
  }

  /**
   * Sends every user's first message (`u<user>-0`) at `rate` per second, then waits for the replies
   * (at most `graceMs`). A first message creates the user, the conversation and its state, so it
   * costs more than the turns after it; doing them first keeps them out of the measured window.
   */
  async introduce(rate: number, graceMs: number): Promise<void> {
    const start = performance.now();
    const users = this.#o.users.length;
    for (let now = start; this.#next < users; now = performance.now()) {
      const due = Math.min(users, Math.floor(((now - start) * rate) / 1000));
      for (; this.#next < due; this.#next += 1) this.#issue(this.#next, 0, now, false);
      await sleepUntil(dueAt(start, rate, this.#next));
    }
    await this.drain(graceMs, 0);
  }

  /**
   * Offers the rate for `warmupMs`, then for `measureMs` (the measured window); `onMark` is called
   * as the window starts and ends (for CPU snapshots). Turns go on from where `introduce` stopped.
   */
  async drive(
    warmupMs: number,
    measureMs: number,
    onMark: (mark: 'start' | 'end') => void,
  ): Promise<void> {
    const start = performance.now();
    const windowStart = start + warmupMs;
    const end = windowStart + measureMs;
    const users = this.#o.users.length;
    const first = this.#next;
    let marked = false;
    for (let now = start; now < end; now = performance.now()) {
      if (!marked && now >= windowStart) {
        marked = true;
        this.#window.start = now;
        onMark('start');
      }
      const due = first + Math.floor(((now - start) * this.#o.rate) / 1000);
      for (; this.#next < due; this.#next += 1) {
        this.#issue(this.#next % users, Math.floor(this.#next / users), now, marked);
      }
      // Or sooner, when the window opens or ends.
      const nextDue = dueAt(start, this.#o.rate, this.#next - first);
      await sleepUntil(Math.min(nextDue, marked ? end : windowStart));
    }
    this.#window.end = performance.now();
    onMark('end');
  }

  /**
   * Waits until every accepted turn has its reply, at most `graceMs`; then `settleMs` more, for
   * duplicates that would come late.
   */
  async drain(graceMs: number, settleMs: number): Promise<void> {
    const deadline = performance.now() + graceMs;
    while (performance.now() < deadline && (this.#backlog > 0 || this.#unanswered > 0)) {
      await sleep(50);
    }
    await sleep(settleMs);
  }

  /** Turns still owed a reply (or still waiting for the edge). */
  get owed(): number {
    return this.#backlog + this.#unanswered;
  }

  /**
   * Every measured turn that got its reply, in the order sent: when it was sent (ms after the
   * window opened) and its latency (ms).
   */
  latencyBySendTime(): [sentMs: number, latencyMs: number][] {
    const { start } = this.#window;
    return [...this.#turns.values()]
      .filter((t) => t.measured && t.repliedAt !== undefined)
      .map((t): [number, number] => [t.sentAt - start, t.repliedAt! - t.sentAt])
      .sort((a, b) => a[0] - b[0]);
  }

  result(): LoadResult {
    const { start, end } = this.#window;
    const measured = [...this.#turns.values()].filter((t) => t.measured);
    const latencies = measured
      .filter((t) => t.repliedAt !== undefined)
      .map((t) => t.repliedAt! - t.sentAt)
      .sort((a, b) => a - b);
    let lost = 0;
    let lostRecent = 0;
    let stillDeferred = 0;
    const now = performance.now();
    for (const turn of this.#turns.values()) {
      if (turn.replies > 0 || turn.refused) continue;
      // A POST still being retried after 503s has not been accepted: it waits at the platform.
      if (!turn.accepted && turn.deferrals > 0) stillDeferred += 1;
      else {
        lost += 1;
        if (turn.acceptedAt !== undefined && now - turn.acceptedAt < 5000) lostRecent += 1;
      }
    }
    const afterAcceptance = measured
      .filter((t) => t.deferrals > 0 && t.repliedAt !== undefined && t.acceptedAt !== undefined)
      .map((t) => t.repliedAt! - t.acceptedAt!)
      .sort((a, b) => a - b);
    return {
      windowMs: end - start,
      measuredTurns: measured.length,
      latencies,
      repliesInWindow: this.#replyTimes.filter((at) => at >= start && at <= end).length,
      lost,
      stillDeferred,
      lostRecent,
      afterAcceptance,
      replies: this.#replies,
      ...this.#counts,
    };
  }

  close(): void {
    this.#agent.destroy();
  }

  #issue(user: number, seq: number, now: number, measured: boolean): void {
    if (this.#backlog >= this.#o.maxBacklog) {
      this.#counts.skipped += 1;
      return;
    }
    const { chatId } = this.#o.users[user]!;
    const text = this.#o.round ? `u${user}-${this.#o.round}.${seq}` : `u${user}-${seq}`;
    const turn: Turn = {
      user,
      seq,
      chatId: String(chatId),
      text,
      sentAt: now,
      measured,
      accepted: false,
      refused: false,
      deferrals: 0,
      replies: 0,
    };
    this.#turns.set(text, turn);
    this.#counts.issued += 1;
    this.#backlog += 1;
    const line = this.#lines[user]!;
    if (line.busy) line.queue.push(turn);
    else this.#post(turn, line);
  }

  #post(turn: Turn, line: UserLine): void {
    line.busy = true;
    const user = this.#o.users[turn.user]!;
    turn.updateId ??= this.#updateId += 1;
    const { body, headers } = (this.#o.request ?? telegramRequest)(user, turn.text, turn.updateId);
    let settled = false;
    const settle = (status: number, retryAfterS = 1): void => {
      if (settled) return;
      settled = true;
      if (status === 503 && turn.deferrals < MAX_DEFERRALS) {
        // Backpressure: a platform delivers the same update again later, and holds the chat's
        // later updates until then (the user's line stays busy), so order is kept.
        turn.deferrals += 1;
        this.#counts.deferred += 1;
        setTimeout(() => this.#post(turn, line), retryAfterS * 1000).unref();
        return;
      }
      this.#backlog -= 1;
      if (status >= 200 && status < 300) {
        turn.accepted = true;
        turn.acceptedAt = performance.now();
        if (turn.replies === 0) this.#unanswered += 1;
      } else {
        turn.refused = true;
        this.#counts.refused += 1;
      }
      const next = line.queue.shift();
      if (next) this.#post(next, line);
      else line.busy = false;
    };
    const req = request(
      {
        agent: this.#agent,
        host: this.#o.origin.hostname,
        port: this.#o.origin.port,
        method: 'POST',
        path: user.path,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
        timeout: 30_000,
      },
      (res) => {
        res.resume();
        const retryAfter = Number(res.headers['retry-after']);
        res.once('end', () =>
          settle(
            res.statusCode ?? 0,
            Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 1,
          ),
        );
        res.once('error', () => settle(0));
      },
    );
    req.once('timeout', () => req.destroy(new Error('callback POST timed out')));
    req.once('error', () => settle(0));
    req.end(body);
  }
}

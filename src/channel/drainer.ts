/**
 * Sends the replies parked for failing platform accounts (`breaker.ts`), outside the handler
 * slots. Every `intervalMs` it looks at the accounts in the parking index; for each whose breaker
 * is not open and whose drain lease it takes (one process drains an account at a time):
 *
 * - the oldest parked reply goes alone (the half-open probe); if the platform fails it, the
 *   breaker opens again, for twice as long;
 * - when it went through, the breaker's failures are forgotten and the next replies of the batch
 *   go, the conversations side by side and each conversation's replies in order; a conversation
 *   stops at its first failure, the others go on; a failure opens the breaker again.
 *
 * A reply is removed from the stream only after it was sent and recorded, so a crash resends
 * nothing (recorded calls are skipped) and loses nothing; the parking order is the order the
 * handlers parked in, which is each conversation's order. Pace per bot and chat is kept: replies
 * go through the same `sendReply` as the handlers'.
 */
import type { MessageContext } from '../shared/bus/delivery.ts';
import { lazyChild, type Logger } from '../shared/logger.ts';
import type { Breaker, ParkedEntry } from './breaker.ts';
import { handleOutbound, isPlatformFailure, type ChannelOut } from './handle-outbound.ts';
import type { OutboundDeps } from './send-reply.ts';

export interface DrainerOptions {
  breaker: Breaker;
  /** How parked replies are sent (no `breaker`: they are not parked again). */
  deps: OutboundDeps;
  logger: Logger;
  /** This process's name, holder of the leases it takes. */
  holder: string;
  /** Time between looks at the index (ms). @defaultValue 200 */
  intervalMs?: number;
  /** Replies taken per round. @defaultValue 20 */
  batch?: number;
  /** Drain lease, renewed after each reply sent (ms). @defaultValue 60000 */
  leaseMs?: number;
}

/** How long an account stays indexed with an empty stream (ms): a park may be on its way. */
const INDEX_GRACE_MS = 10_000;

/** Wait after a failure that is not the platform's (Postgres down, say) (ms). */
const LATER_MS = 1000;

type Sent = 'sent' | 'platform' | 'later';

/** The loop that sends parked replies; `start()` it with the process, `close()` it before Redis. */
export class Drainer {
  readonly #o: Required<DrainerOptions>;
  readonly #running = new Map<string, Promise<void>>();
  readonly #notBefore = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: DrainerOptions) {
    this.#o = { intervalMs: 200, batch: 20, leaseMs: 60_000, ...options };
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.tick(), this.#o.intervalMs);
  }

  /** Stops looking, and waits for the rounds under way. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      clearInterval(this.#timer);
      await Promise.allSettled(this.#running.values());
    })();
    return this.#closing;
  }

  /** One look at the index: starts a round for each account not drained here already. */
  async tick(): Promise<void> {
    if (this.#closing) return;
    let accounts: { account: string; parkedAt: number }[];
    try {
      accounts = await this.#o.breaker.indexed();
    } catch (error) {
      this.#o.logger.debug({ err: error }, 'parking index unreadable; next look');
      return;
    }
    for (const { account, parkedAt } of accounts) {
      if (this.#running.has(account) || (this.#notBefore.get(account) ?? 0) > Date.now()) continue;
      const round = this.#round(account, parkedAt)
        .catch((error: unknown) => {
          this.#notBefore.set(account, Date.now() + LATER_MS);
          this.#o.logger.warn({ err: error, channelId: account }, 'drain round failed');
        })
        .finally(() => this.#running.delete(account));
      this.#running.set(account, round);
    }
  }

  async #round(account: string, parkedAt: number): Promise<void> {
    const { breaker, holder, leaseMs, batch } = this.#o;
    if ((await breaker.openFor(account)) > 0) return;
    if (!(await breaker.lease(account, holder, leaseMs))) return;
    try {
      const entries = await breaker.peek(account, batch);
      const [probe, ...rest] = entries;
      if (!probe) {
        if (Date.now() - parkedAt > INDEX_GRACE_MS) await breaker.unindex(account);
        return;
      }
      const first = await this.#send(account, probe);
      if (first !== 'sent') {
        if (first === 'platform') await breaker.fail(account, 1);
        return;
      }
      await breaker.succeeded(account);
      const conversations = new Map<string, ParkedEntry[]>();
      for (const entry of rest) {
        const key = conversationOf(entry) ?? entry.id;
        conversations.set(key, [...(conversations.get(key) ?? []), entry]);
      }
      let failed = false;
      await Promise.all(
        [...conversations.values()].map(async (list) => {
          for (const entry of list) {
            if (failed || this.#closing) return;
            const sent = await this.#send(account, entry);
            if (sent === 'platform') failed = true;
            if (sent !== 'sent') return;
            await breaker.renew(account, leaseMs);
          }
        }),
      );
      if (failed) await breaker.fail(account, 1);
    } finally {
      await breaker.release(account, holder).catch(() => undefined);
    }
  }

  /** Sends one parked reply and removes it; says how it went. */
  async #send(account: string, entry: ParkedEntry): Promise<Sent> {
    let input: ChannelOut;
    try {
      input = JSON.parse(entry.data) as ChannelOut;
    } catch {
      this.#o.logger.error(
        { channelId: account, id: entry.id },
        'unreadable parked reply; removed',
      );
      await this.#o.breaker.remove(account, [entry.id]);
      return 'sent';
    }
    const log = lazyChild(this.#o.logger, {
      topic: 'channel',
      parkedId: entry.id,
      turnId: input.turn_id,
    });
    const context: MessageContext = { id: entry.id, topic: 'channel', deliveries: 1, log };
    try {
      await handleOutbound(this.#o.deps, input, context);
    } catch (error) {
      if (isPlatformFailure(error, true)) return 'platform';
      this.#notBefore.set(account, Date.now() + LATER_MS);
      log.warn({ err: error }, 'a parked reply could not be sent; trying again later');
      return 'later';
    }
    await this.#o.breaker.remove(account, [entry.id]);
    return 'sent';
  }
}

function conversationOf(entry: ParkedEntry): string | undefined {
  try {
    return (JSON.parse(entry.data) as ChannelOut).bot_output.conversation.conversation_id;
  } catch {
    return undefined;
  }
}

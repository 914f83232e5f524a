/**
 * Who may hold the event-stream slots of one api process (`visitor-hub.ts`): a visitor at most
 * `perVisitor` streams, and the `total` slots shared fairly between bots. At capacity a bot holding
 * at least two streams fewer than the bot holding most takes the newest stream of that one (which
 * the hub ends; its client reconnects and resumes when there is room), so one bot's visitors, or
 * one visitor's many sessions, cannot keep another bot out. At least two fewer, so that two bots
 * never take turns ending each other's streams.
 */
import { BotwireError } from '../../shared/errors.ts';

/** Whose a stream is. */
export interface StreamOwner {
  appId: string;
  visitorId: string;
  /** The key of the channel the stream was opened on (web: its tokens die with it; console). */
  tokenKey: string;
}

export class StreamSlots<T extends { owner: StreamOwner }> {
  readonly #total: number;
  readonly #perVisitor: number;
  /** Per bot, its holders in the order they came (the newest last). */
  readonly #byBot = new Map<string, Set<T>>();
  /** Per visitor (`<app_id>:<visitor_id>`), how many slots it holds. */
  readonly #byVisitor = new Map<string, number>();
  #count = 0;

  constructor(options: { total: number; perVisitor: number }) {
    this.#total = options.total;
    this.#perVisitor = options.perVisitor;
  }

  get size(): number {
    return this.#count;
  }

  /**
   * Whether `owner` may take a slot; at capacity, the holder whose slot it takes (to be ended,
   * and released, by the caller before `take`).
   * @throws BotwireError `BW_ERR_VISITOR_STREAMS` past the visitor's share;
   *   `BW_ERR_TOO_MANY_STREAMS` at capacity when no bot holds more than its share.
   */
  admit(owner: StreamOwner): T | undefined {
    if ((this.#byVisitor.get(visitorOf(owner)) ?? 0) >= this.#perVisitor) {
      throw new BotwireError(
        'BW_ERR_VISITOR_STREAMS',
        `this visitor already has ${this.#perVisitor} event streams open here (WEB_MAX_STREAMS_PER_VISITOR); close one`,
      );
    }
    if (this.#count < this.#total) return undefined;
    let top: Set<T> | undefined;
    for (const holders of this.#byBot.values()) if (!top || holders.size > top.size) top = holders;
    const held = this.#byBot.get(owner.appId)?.size ?? 0;
    const newest = top && held + 1 < top.size ? [...top].pop() : undefined;
    if (newest) return newest;
    throw new BotwireError(
      'BW_ERR_TOO_MANY_STREAMS',
      'this server holds as many event streams as it may (WEB_MAX_EVENT_STREAMS); try again shortly',
    );
  }

  take(holder: T): void {
    const { owner } = holder;
    const bot = this.#byBot.get(owner.appId) ?? new Set<T>();
    bot.add(holder);
    this.#byBot.set(owner.appId, bot);
    const visitor = visitorOf(owner);
    this.#byVisitor.set(visitor, (this.#byVisitor.get(visitor) ?? 0) + 1);
    this.#count += 1;
  }

  release(holder: T): void {
    const { owner } = holder;
    const bot = this.#byBot.get(owner.appId);
    if (!bot?.delete(holder)) return;
    if (bot.size === 0) this.#byBot.delete(owner.appId);
    const visitor = visitorOf(owner);
    const left = (this.#byVisitor.get(visitor) ?? 1) - 1;
    if (left > 0) this.#byVisitor.set(visitor, left);
    else this.#byVisitor.delete(visitor);
    this.#count -= 1;
  }

  /** The holders of bot `appId`. */
  ofBot(appId: string): T[] {
    return [...(this.#byBot.get(appId) ?? [])];
  }
}

function visitorOf(owner: StreamOwner): string {
  return `${owner.appId}:${owner.visitorId}`;
}

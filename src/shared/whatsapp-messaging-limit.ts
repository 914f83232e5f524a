/**
 * WhatsApp's messaging limit (docs/outbound.md, "The daily messaging limit"): a business number
 * may start conversations (a template to a user whose 24-hour window is closed) with at most so
 * many unique users in any rolling 24 hours: its tier, 250, 1,000, 10,000, 100,000 or unlimited.
 * Meta refuses what passes it. botwire counts the users each number started conversations with
 * in Redis, shared by every api and channel process, and asks before each such send: a user
 * already counted in the last 24 hours is free; otherwise the send takes room, or waits for the
 * oldest to leave the 24 hours.
 */
import type { Redis } from './redis.ts';
import { defineScript } from './redis.ts';
import { WHATSAPP_WINDOW_MS } from './whatsapp-window.ts';
import type { WhatsAppDetails } from './bots/types.ts';

/** Meta's tiers (unique users a day), as a channel's `messaging_limit` names them. */
export const MESSAGING_LIMITS = [250, 1000, 10_000, 100_000, 'unlimited'] as const;
export type MessagingLimitTier = (typeof MESSAGING_LIMITS)[number];

/** A number without its tier set is held to Meta's first tier, where every number starts. */
export const DEFAULT_MESSAGING_LIMIT: MessagingLimitTier = 250;

/** The users a day channel `details` may start conversations with; null when unlimited. */
export function messagingLimitOf(details: WhatsAppDetails): number | null {
  const tier = details.messaging_limit ?? DEFAULT_MESSAGING_LIMIT;
  return tier === 'unlimited' ? null : tier;
}

// KEYS[1]: a sorted set of the users the number started conversations with, scored by when (ms).
// ARGV: the user, the limit, the window (ms). Returns -1 when the user is counted now, 0 when
// counted already in the window (both: may be written to), else how long (ms) until there is room:
// until the user whose leaving brings the count under the limit leaves the window (the oldest,
// unless the set holds more than the limit, as after a lower limit was set).
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[3])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  local leaving = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
  return math.max(1, tonumber(leaving[2]) + window - now)
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], window)
return -1`;

interface TakeCommand {
  bwMessagingLimitTake(
    numKeys: 1,
    key: string,
    user: string,
    limit: number,
    windowMs: number,
  ): Promise<unknown>;
}

/** How many users a number started conversations with in the 24 hours before a time. */
export interface Usage {
  limit: number | null;
  used: number;
}

export class MessagingLimit {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    if (!('bwMessagingLimitTake' in redis))
      defineScript(redis, 'bwMessagingLimitTake', { lua: TAKE });
    this.#redis = redis;
    this.#prefix = prefix;
  }

  #key(number: string): string {
    return `${this.#prefix}:wa-started:{wa:${number}}`;
  }

  /**
   * Takes room for starting a conversation with `user` on `number`: `waitMs` 0 when it may be
   * sent (`taken`: room taken now, which `release` gives back if nothing is sent after all; else
   * the user was counted already), otherwise how long (ms) until there is room.
   */
  async take(
    number: string,
    user: string,
    limit: number | null,
  ): Promise<{ waitMs: number; taken: boolean }> {
    if (limit === null) return { waitMs: 0, taken: false };
    const redis = this.#redis as unknown as TakeCommand;
    const answer = Number(
      await redis.bwMessagingLimitTake(1, this.#key(number), user, limit, WHATSAPP_WINDOW_MS),
    );
    return { waitMs: Math.max(0, answer), taken: answer < 0 };
  }

  /** Gives back the room `take` took for `user`: nothing was sent to them after all. */
  async release(number: string, user: string): Promise<void> {
    await this.#redis.zrem(this.#key(number), user);
  }

  /** The users `number` started conversations with in the 24 hours before `at` (now when absent). */
  async usage(number: string, limit: number | null, at = new Date()): Promise<Usage> {
    const from = Math.max(at.getTime(), Date.now()) - WHATSAPP_WINDOW_MS;
    const used = await this.#redis.zcount(this.#key(number), `(${from}`, '+inf');
    return { limit, used };
  }
}

/** A day of a broadcast's plan: from when, and how many users it starts conversations with. */
export interface PlannedDay {
  from: string;
  users: number;
}

/**
 * How a broadcast that starts conversations with `starting` users from `startAt` fits the
 * number's limit: what there is room for at its start, then `limit` a day. One day when it fits.
 */
export function planDays(usage: Usage, starting: number, startAt: Date): PlannedDay[] {
  const days: PlannedDay[] = [];
  if (usage.limit === null || starting === 0) {
    return [{ from: startAt.toISOString(), users: starting }];
  }
  let left = starting;
  let room = Math.max(0, usage.limit - usage.used);
  for (let day = 0; left > 0; day += 1) {
    const users = Math.min(left, room);
    if (users > 0) {
      days.push({
        from: new Date(startAt.getTime() + day * WHATSAPP_WINDOW_MS).toISOString(),
        users,
      });
    }
    left -= users;
    room = usage.limit;
  }
  return days;
}

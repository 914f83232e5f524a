/**
 * What `llm` steps spend, kept in Redis so every `flow` process of a bot shares it: the bot's
 * tokens of the day (UTC), reserved before a call and settled with what the provider reports,
 * and totals by outcome for the metrics (read by `api` on each scrape). A call is refused when
 * its reservation would pass the day's budget. A call the provider did not bill gives its
 * reservation back; a process that dies mid-call, or a call that timed out, keeps it (the budget
 * errs on the side of spending less).
 */
import type { Redis } from '../redis.ts';
import { dayOf } from '../utc-day.ts';

/** Days a bot's daily counter is kept after its day (for the admin API and the console). */
const KEEP_S = 3 * 24 * 3600;

// KEYS[1] the day's counter; ARGV: tokens to reserve, the limit, expiry (s). 1 when reserved.
const RESERVE = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used + tonumber(ARGV[1]) > tonumber(ARGV[2]) then return 0 end
redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1`;

/** The key of a bot's tokens on `day` (one key: no cross-slot operation on a cluster). */
export const dailyKey = (prefix: string, appId: string, day: string): string =>
  `${prefix}:llm:{${appId}}:tokens:${day}`;

/** The key of the totals by outcome of every bot's calls. */
export const statsKey = (prefix: string): string => `${prefix}:llm:stats`;

/** The key holding a step's result once made, so a retried turn does not pay for it twice. */
export const resultKey = (prefix: string, requestId: string): string =>
  `${prefix}:llm:result:{${requestId}}`;

export class LlmUsage {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Reserves `tokens` of the bot's day; false when that would pass `limit`. */
  async reserve(appId: string, tokens: number, limit: number, now = new Date()): Promise<boolean> {
    const key = dailyKey(this.prefix, appId, dayOf(now));
    return (await this.redis.eval(RESERVE, 1, key, tokens, limit, KEEP_S)) === 1;
  }

  /**
   * Corrects a reservation by what was really used (`used - reserved`, may be negative).
   * @param now a time of the day the reservation was made on (pass the one given to `reserve`)
   */
  async settle(appId: string, delta: number, now = new Date()): Promise<void> {
    if (delta !== 0) await this.redis.incrby(dailyKey(this.prefix, appId, dayOf(now)), delta);
  }

  /** The bot's tokens of the day so far. */
  async used(appId: string, now = new Date()): Promise<number> {
    return Number((await this.redis.get(dailyKey(this.prefix, appId, dayOf(now)))) ?? 0);
  }

  /** Counts one step's outcome (`ok` or a code) and its tokens, for the metrics. */
  async count(outcome: string, tokens: number): Promise<void> {
    await this.redis
      .multi()
      .hincrby(statsKey(this.prefix), `steps:${outcome}`, 1)
      .hincrby(statsKey(this.prefix), 'tokens', tokens)
      .exec();
  }
}

/** The totals for the metrics: steps by outcome, and tokens. */
export async function readLlmStats(
  redis: Redis,
  prefix: string,
): Promise<{ steps: { outcome: string; count: number }[]; tokens: number }> {
  const all = await redis.hgetall(statsKey(prefix));
  const steps = Object.entries(all)
    .filter(([field]) => field.startsWith('steps:'))
    .map(([field, count]) => ({ outcome: field.slice('steps:'.length), count: Number(count) }));
  return { steps, tokens: Number(all.tokens ?? 0) };
}

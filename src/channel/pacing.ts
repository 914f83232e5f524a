/**
 * Sending pace shared by every process of `channel`, kept in Redis: a generic cell rate algorithm
 * that hands each send a slot and says how long to wait for it. Bursts up to `burst` go at once;
 * after that, one send per `intervalMs`. Waiting (rather than refusing) keeps a conversation's
 * messages in order.
 *
 * Limits used (see docs/pipeline.md): Telegram 30 messages/s per bot, about 1/s per private chat
 * (bursts of 3) and 20/min per group; WhatsApp 80 messages/s per number.
 */
import type { Redis } from '../shared/redis.ts';

const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local tolerance = interval * (tonumber(ARGV[2]) - 1)
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local wait = tat - tolerance - now
if wait < 0 then wait = 0 end
redis.call('SET', KEYS[1], tat + interval, 'PX', math.ceil(tat + interval - now + 1000))
return wait`;

export interface Pace {
  intervalMs: number;
  burst: number;
}

export const PACES = {
  telegramBot: { intervalMs: 34, burst: 30 },
  telegramPrivateChat: { intervalMs: 1000, burst: 3 },
  telegramGroupChat: { intervalMs: 3000, burst: 3 },
  whatsappNumber: { intervalMs: 13, burst: 80 },
} as const satisfies Record<string, Pace>;

/** Reserves a slot under `key` and resolves to how long (ms) to wait for it. */
export async function reserve(redis: Redis, key: string, pace: Pace): Promise<number> {
  return Number(await redis.eval(RESERVE, 1, key, pace.intervalMs, pace.burst));
}

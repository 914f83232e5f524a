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

// One slot under each key (KEYS[i] paced by ARGV[2i-1] ms with bursts of ARGV[2i]); returns the
// longest wait. All keys of one call share a hash tag (one Cluster slot).
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local longest = 0
for i = 1, #KEYS do
  local interval = tonumber(ARGV[2 * i - 1])
  local tolerance = interval * (tonumber(ARGV[2 * i]) - 1)
  local tat = tonumber(redis.call('GET', KEYS[i]) or now)
  if tat < now then tat = now end
  local wait = tat - tolerance - now
  if wait > longest then longest = wait end
  redis.call('SET', KEYS[i], tat + interval, 'PX', math.ceil(tat + interval - now + 1000))
end
return longest`;

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

interface ReserveCommand {
  bwReserve(numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/**
 * The pacing script, defined as the connection is made (`createKit`'s `scripts`, which says why
 * not later); it then goes by its SHA1 (`EVALSHA`), not as text with every call.
 */
export const PACING_SCRIPTS = { bwReserve: { lua: RESERVE } };

/** Reserves send slots through a connection made with `PACING_SCRIPTS`. */
export class Pacer {
  readonly #redis: ReserveCommand;

  constructor(redis: Redis) {
    if (!('bwReserve' in redis)) {
      throw new Error('the Redis connection was made without PACING_SCRIPTS');
    }
    this.#redis = redis as unknown as ReserveCommand;
  }

  /**
   * Reserves a slot under every key at once (one round trip) and resolves to how long (ms) to
   * wait for the latest of them. The keys must share a hash tag.
   */
  async reserve(paces: readonly [string, Pace][]): Promise<number> {
    const args = paces.flatMap(([, pace]) => [pace.intervalMs, pace.burst]);
    return Number(await this.#redis.bwReserve(paces.length, ...paces.map(([key]) => key), ...args));
  }
}

/**
 * Sending pace shared by every process of `channel`, kept in Redis: a generic cell rate algorithm
 * that hands each send a slot and says how long to wait for it. Bursts up to `burst` go at once;
 * after that, one send per `intervalMs`. Waiting (rather than refusing) keeps a conversation's
 * messages in order.
 *
 * Limits used (see docs/pipeline.md): Telegram 30 messages/s per bot, about 1/s per private chat
 * (bursts of 3) and 20/min per group; WhatsApp 80 messages/s per number by default
 * (WHATSAPP_MESSAGES_PER_SECOND: up to 1,000 on an upgraded number).
 *
 * Replies reserve with bursts; a broadcast takes only what they leave (`reserveLeftover`).
 */
import type { Redis } from '../shared/redis.ts';

/**
 * Lua: `reserve(k, a)` takes one slot under each of KEYS[k + 1..] (KEYS[k + i] paced by
 * ARGV[a + 2i - 1] ms with bursts of ARGV[a + 2i]) and returns the longest wait. All keys of one
 * call share a hash tag (one Cluster slot). The breaker's admission runs it too (`breaker.ts`).
 */
export const RESERVE_LUA = `
local function reserve(k, a)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local longest = 0
  for i = 1, #KEYS - k do
    local interval = tonumber(ARGV[a + 2 * i - 1])
    local tolerance = interval * (tonumber(ARGV[a + 2 * i]) - 1)
    local tat = tonumber(redis.call('GET', KEYS[k + i]) or now)
    if tat < now then tat = now end
    local wait = tat - tolerance - now
    if wait > longest then longest = wait end
    redis.call('SET', KEYS[k + i], string.format('%.3f', tat + interval), 'PX', math.ceil(tat + interval - now + 1000))
  end
  return longest
end`;

const RESERVE = `${RESERVE_LUA}
return reserve(0, 0)`;

// What is left: a slot under every key only if none of them is owed (a send paced ahead of now);
// otherwise nothing is reserved and the answer is how long until the latest is due. A sender that
// reserves this way never takes a burst's room, so replies reserving with RESERVE after it wait
// no longer than they would without it (docs/outbound.md, "Pacing").
const RESERVE_LEFTOVER = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local owed = 0
local tats = {}
for i = 1, #KEYS do
  local interval = tonumber(ARGV[2 * i - 1])
  local tat = tonumber(redis.call('GET', KEYS[i]) or now)
  if tat - now > owed then owed = tat - now end
  -- A sender that asks a little late (a timer's lag) keeps the pace: up to one interval is
  -- carried over. Never more: what it leaves behind is never more than one slot ahead of now.
  if tat < now - interval then tat = now - interval end
  tats[i] = tat
end
if owed > 0 then return math.ceil(owed) end
for i = 1, #KEYS do
  local interval = tonumber(ARGV[2 * i - 1])
  redis.call('SET', KEYS[i], string.format('%.3f', tats[i] + interval), 'PX', math.ceil(tats[i] + interval - now + 1000))
end
return 0`;

export interface Pace {
  intervalMs: number;
  burst: number;
}

export const PACES = {
  telegramBot: { intervalMs: 34, burst: 30 },
  telegramPrivateChat: { intervalMs: 1000, burst: 3 },
  telegramGroupChat: { intervalMs: 3000, burst: 3 },
  whatsappNumber: { intervalMs: 12.5, burst: 80 },
} as const satisfies Record<string, Pace>;

/** A WhatsApp number's pace at `perSecond` messages a second, bursts of one second's worth. */
export function whatsappNumberPace(perSecond: number): Pace {
  return { intervalMs: 1000 / perSecond, burst: Math.max(1, Math.round(perSecond)) };
}

/** A pacing script's KEYS (the keys of `paces`) and ARGV (each one's interval and burst). */
export function paceArgs(paces: readonly [string, Pace][]): {
  keys: string[];
  rates: number[];
} {
  return {
    keys: paces.map(([key]) => key),
    rates: paces.flatMap(([, pace]) => [pace.intervalMs, pace.burst]),
  };
}

interface ReserveCommand {
  bwReserve(numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  bwReserveLeftover(numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/**
 * The pacing script, defined as the connection is made (`createKit`'s `scripts`, which says why
 * not later); it then goes by its SHA1 (`EVALSHA`), not as text with every call.
 */
export const PACING_SCRIPTS = {
  bwReserve: { lua: RESERVE },
  bwReserveLeftover: { lua: RESERVE_LEFTOVER },
};

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
    const { keys, rates } = paceArgs(paces);
    return Number(await this.#redis.bwReserve(keys.length, ...keys, ...rates));
  }

  /**
   * Reserves a slot under every key only where none is owed: what replies leave (a broadcast's
   * sends). Resolves to 0 when reserved, else to how long (ms) to wait before asking again.
   */
  async reserveLeftover(paces: readonly [string, Pace][]): Promise<number> {
    const { keys, rates } = paceArgs(paces);
    return Number(await this.#redis.bwReserveLeftover(keys.length, ...keys, ...rates));
  }
}

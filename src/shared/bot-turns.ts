/**
 * What waits for one bot, for per-bot backpressure at the edge (docs/pipeline.md, "Fairness
 * between bots").
 *
 * - The turn ledger: a sorted set per bot of the turns the edge took (member turn id, score
 *   the time it was admitted, ms). `channel` removes a turn when it is finished: its reply sent,
 *   its inbound message ending with nothing for the flow, its reply dropped, or the turn parked
 *   (it then counts in the parking stream); `flow` removes a turn that publishes nothing. Entries
 *   older than the horizon are trimmed when the edge counts, so a turn whose removal was missed
 *   (one that was dead-lettered) stops counting after the horizon.
 * - The parking stream of each of the bot's channels (`channel`'s circuit breaker, see
 *   src/channel/breaker.ts): replies waiting for a failing platform to come back.
 *
 * Keys carry the bot's (or channel's) id as their hash tag, so each stays in one Cluster slot.
 */
import type { Redis } from './redis.ts';

/** The turn ledger of a bot. */
export function botTurnsKey(prefix: string, appId: string): string {
  return `${prefix}:{bot:${appId}}:turns`;
}

/** The common part of a channel's parking keys (stream, breaker state, markers). */
export function parkingBase(prefix: string, channelId: string): string {
  return `${prefix}:{park:${channelId}}`;
}

/** The stream of a channel's parked replies. */
export function parkedKey(prefix: string, channelId: string): string {
  return `${parkingBase(prefix, channelId)}:parked`;
}

/**
 * The keys of a channel's circuit breaker (src/channel/breaker.ts): its parked replies, the flag
 * that is set while it is open (for as long as it stays open), the failures in its window, and
 * how many times it opened lately (each opening lasts twice the one before).
 */
export function breakerKeys(
  prefix: string,
  channelId: string,
): { parked: string; open: string; fails: string; level: string } {
  const base = parkingBase(prefix, channelId);
  return {
    parked: parkedKey(prefix, channelId),
    open: `${base}:open`,
    fails: `${base}:fails`,
    level: `${base}:level`,
  };
}

/**
 * Trims a bot's ledger of turns admitted before `now - horizon` (ms), counts the rest, and, when
 * that count is at most the bot's limit, enters the new turns (score `now`) and renews the key's
 * expiry. Answers the count before the entry. One script: the edge's whole per-bot accounting is
 * one command per bot and callback, where it was four.
 */
const ADMIT_TURNS = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local horizon = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - horizon)
local count = redis.call('ZCARD', key)
if count <= tonumber(ARGV[3]) then
  for i = 4, #ARGV do redis.call('ZADD', key, now, ARGV[i]) end
  redis.call('PEXPIRE', key, horizon)
end
return count
`;

/** The ledger's script, defined with the edge's connection (`createKit`'s `scripts`). */
export const BOT_TURN_SCRIPTS = { bwAdmitTurns: { lua: ADMIT_TURNS } };

interface AdmitCommand {
  bwAdmitTurns(numKeys: 1, key: string, ...args: (string | number)[]): Promise<unknown>;
}

/**
 * Enters a callback's new turns in their bot's ledger unless the ledger already holds more than
 * `max` (turns older than `horizonMs` are trimmed first); answers how many it held before. Used
 * where the check cannot ride in the publish script (a cluster; on one server
 * `Producer.publishOnceAdmitted` does this work). The edge enters turns before it publishes
 * them, so that `channel` cannot finish a turn before it is entered (it would then count until
 * the horizon); what is then not published (refused,
 * duplicate, failed) is taken out again with `finishTurns`. Needs a connection made with
 * `BOT_TURN_SCRIPTS`.
 */
export async function admitTurns(
  redis: Redis,
  prefix: string,
  appId: string,
  turnIds: readonly string[],
  max: number,
  horizonMs: number,
  now = Date.now(),
): Promise<number> {
  if (!('bwAdmitTurns' in redis)) {
    throw new Error('the Redis connection was made without BOT_TURN_SCRIPTS');
  }
  const count = await (redis as unknown as AdmitCommand).bwAdmitTurns(
    1,
    botTurnsKey(prefix, appId),
    now,
    horizonMs,
    max,
    ...turnIds,
  );
  return Number(count);
}

/** Replies parked on the channels (their circuit breakers' streams). */
export async function parkedReplies(
  redis: Redis,
  prefix: string,
  channelIds: readonly string[],
): Promise<number> {
  const lengths = await Promise.all(channelIds.map((id) => redis.xlen(parkedKey(prefix, id))));
  return lengths.reduce((sum, n) => sum + n, 0);
}

/** The bot's turns published and not yet finished, those older than `horizonMs` dropped first. */
export async function turnsInFlight(
  redis: Redis,
  prefix: string,
  appId: string,
  horizonMs: number,
  now = Date.now(),
): Promise<number> {
  const key = botTurnsKey(prefix, appId);
  const [, count] = await Promise.all([
    redis.zremrangebyscore(key, '-inf', now - horizonMs),
    redis.zcard(key),
  ]);
  return Number(count);
}

/** Takes turns out of their bot's ledger (those not there are passed over). */
export async function finishTurns(
  redis: Redis,
  prefix: string,
  appId: string,
  turnIds: readonly string[],
): Promise<void> {
  if (turnIds.length > 0) await redis.zrem(botTurnsKey(prefix, appId), ...turnIds);
}

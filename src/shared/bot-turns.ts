/**
 * What waits for one bot, for per-bot backpressure at the edge (docs/pipeline.md, "Fairness
 * between bots").
 *
 * - The turn ledger: a sorted set per bot of the turns the edge published (member turn id, score
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

/** A turn the edge published, for the ledger. */
export interface AdmittedTurn {
  appId: string;
  turnId: string;
}

/**
 * What waits for a bot now: its ledger's turns younger than `horizonMs` (older ones are trimmed
 * here) plus the replies parked on its channels. Plain commands: on an auto-pipelined connection
 * they go in one write with the request's other commands.
 */
export async function botBacklog(
  redis: Redis,
  prefix: string,
  appId: string,
  channelIds: readonly string[],
  horizonMs: number,
  now = Date.now(),
): Promise<number> {
  const [count, ...parked] = await Promise.all([
    turnsInFlight(redis, prefix, appId, horizonMs, now),
    ...channelIds.map((id) => redis.xlen(parkedKey(prefix, id))),
  ]);
  return count + parked.reduce<number>((sum, n) => sum + Number(n), 0);
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

/**
 * Adds published turns to their bots' ledgers; each ledger expires `horizonMs` after its last
 * admission, so an idle bot leaves no key behind.
 */
export async function admitTurns(
  redis: Redis,
  prefix: string,
  turns: readonly AdmittedTurn[],
  horizonMs: number,
  now = Date.now(),
): Promise<void> {
  const byBot = new Map<string, string[]>();
  for (const { appId, turnId } of turns) byBot.set(appId, [...(byBot.get(appId) ?? []), turnId]);
  await Promise.all(
    [...byBot].flatMap(([appId, ids]) => {
      const key = botTurnsKey(prefix, appId);
      return [redis.zadd(key, ...ids.flatMap((id) => [now, id])), redis.pexpire(key, horizonMs)];
    }),
  );
}

/** Removes a finished turn from its bot's ledger (nothing happens if it is not there). */
export async function finishTurn(
  redis: Redis,
  prefix: string,
  appId: string,
  turnId: string,
): Promise<void> {
  await redis.zrem(botTurnsKey(prefix, appId), turnId);
}

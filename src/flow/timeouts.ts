/**
 * Deadlines for effects answered through a topic (a retriever query): if no answer has come by
 * then, the flow gets a failed result, so a conversation never waits forever. Deadlines live in a
 * sorted set under the flow topic's hash tag; any `flow` process may fire one, and the claim
 * (ZREM inside the script) makes sure only one does. A real answer that arrives after the timeout
 * is ignored by the engine (its request is no longer awaited).
 */
import type { Redis } from '../shared/redis.ts';

// Due deadlines are not removed when taken but pushed ARGV[2] ms ahead: if the process dies
// before publishing the failed result (and settling the deadline), another fires it later. A
// second result for the same request is stale and ignored by the engine.
const CLAIM_DUE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), member) end
return due`;

const ADD = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZADD', KEYS[1], 'NX', now + tonumber(ARGV[1]), ARGV[2])`;

export function timeoutsKey(prefix: string): string {
  return `${prefix}:{flow}:timeouts`;
}

/** What is needed to tell the conversation its request timed out. */
export interface PendingEffect {
  request_id: string;
  ordering_key: string;
  conversation: unknown;
}

/**
 * Sets the deadline of a request unless it is set already (a redelivered turn sets it again
 * without moving it).
 */
export async function addDeadline(
  redis: Redis,
  prefix: string,
  effect: PendingEffect,
  timeoutMs: number,
): Promise<void> {
  // Redis time on both sides, so clock skew between machines does not move deadlines.
  await redis.eval(ADD, 1, timeoutsKey(prefix), timeoutMs, JSON.stringify(effect));
}

export interface DueEffect extends PendingEffect {
  /** Pass to `settleDeadline` once the failed result is published. */
  member: string;
}

/** Takes up to `limit` deadlines that have passed (each comes back after `retryMs` unless settled). */
export async function claimDue(
  redis: Redis,
  prefix: string,
  limit = 100,
  retryMs = 30_000,
): Promise<DueEffect[]> {
  const due = (await redis.eval(CLAIM_DUE, 1, timeoutsKey(prefix), limit, retryMs)) as string[];
  return due.map((member) => ({ ...(JSON.parse(member) as PendingEffect), member }));
}

/** Removes a deadline: its result was published, or the real answer came. */
export async function settleDeadline(redis: Redis, prefix: string, member: string): Promise<void> {
  await redis.zrem(timeoutsKey(prefix), member);
}

/**
 * The live-member sets: a sorted set per component (`<prefix>:{<component>}:members`) whose
 * members are process names and whose scores are heartbeat deadlines (ms, Redis time). Stream
 * consumers heartbeat into their topic's set as part of each partition-lease round
 * (`partition-leases.ts`); the api, which consumes no topic, heartbeats into `{api}` with
 * {@link Heartbeat}. `GET /v2/ops/processes` reads them with {@link readMembers}.
 */
import type { Logger } from '../logger.ts';
import type { Redis } from '../redis.ts';

/**
 * Records ARGV[1] as alive until now + ARGV[2] ms, drops members past their deadline, keeps the
 * set for ten lifetimes after its last heartbeat, and returns the live members.
 */
export const HEARTBEAT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 10)
return redis.call('ZRANGE', KEYS[1], 0, -1)`;

/** The member set of a component (for a stream component, the same key as `topicKeys().members`). */
export function membersKey(prefix: string, component: string): string {
  return `${prefix}:{${component}}:members`;
}

/** One process of a member set. */
export interface Member {
  name: string;
  /** When its heartbeat runs out, unless renewed (ms since the epoch, Redis time). */
  deadlineMs: number;
}

/**
 * Every member of the sets named, by key, in name order; and Redis' clock (ms). One command per
 * set, sent together: the sets lie in different Redis Cluster slots, which one pipeline cannot
 * span (on an auto-pipelined connection they still leave in one write per node).
 */
export async function readMembers(
  redis: Redis,
  keys: readonly string[],
): Promise<{ nowMs: number; members: Map<string, Member[]> }> {
  const [time, ...sets] = await Promise.all([
    redis.time(),
    ...keys.map((key) => redis.zrange(key, '0', '-1', 'WITHSCORES')),
  ]);
  const [seconds, micros] = time as [string | number, string | number];
  const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  const members = new Map<string, Member[]>();
  keys.forEach((key, i) => {
    const pairs = sets[i] as string[];
    const list: Member[] = [];
    for (let j = 0; j + 1 < pairs.length; j += 2) {
      list.push({ name: pairs[j]!, deadlineMs: Number(pairs[j + 1]) });
    }
    members.set(
      key,
      list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    );
  });
  return { nowMs, members };
}

export interface HeartbeatOptions {
  redis: Redis;
  /** The member set ({@link membersKey}). */
  key: string;
  /** This process's name in the set (`CONSUMER_NAME`). */
  name: string;
  /** How long one heartbeat counts (ms); renewed every third of it (`CONSUMER_LEASE_MS`). */
  ttlMs: number;
  logger: Logger;
}

/**
 * Keeps a process in a member set for a process that reads no topic (the api), the way stream
 * consumers are kept by their lease rounds. A failed heartbeat is logged at debug and retried
 * at the next tick: the set is for operators, nothing depends on it.
 */
export class Heartbeat {
  readonly #o: HeartbeatOptions;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: HeartbeatOptions) {
    this.#o = options;
  }

  start(): void {
    if (this.#timer) return;
    void this.beat();
    this.#timer = setInterval(() => void this.beat(), Math.max(100, Math.floor(this.#o.ttlMs / 3)));
    this.#timer.unref();
  }

  /** One heartbeat now. */
  async beat(): Promise<void> {
    const { redis, key, name, ttlMs, logger } = this.#o;
    try {
      await redis.eval(HEARTBEAT_SCRIPT, 1, key, name, ttlMs);
    } catch (error) {
      logger.debug({ err: error }, 'heartbeat failed');
    }
  }

  /** Stops beating and leaves the set, so the process is no longer listed. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#o.redis.zrem(this.#o.key, this.#o.name);
  }
}

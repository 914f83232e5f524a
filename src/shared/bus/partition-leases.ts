/**
 * Which partitions of a topic this process reads. Every consumer of a group heartbeats into the
 * topic's member set; partition p belongs to the (p mod n)-th live member in name order, so every
 * process computes the same assignment. A lease key per partition (owner name, expiring after
 * `leaseMs`) makes ownership exclusive while views of the member set briefly differ: a partition
 * is taken only once its previous owner released it or its lease ran out.
 *
 * Time comes from Redis (`TIME` inside the scripts), so clock skew between machines does not
 * evict live members.
 */
import type { Logger } from '../logger.ts';
import type { Redis } from '../redis.ts';
import { HEARTBEAT_SCRIPT } from './members.ts';
import type { TopicKeys } from './topics.ts';

// Each lease key lies in its partition's slot (`topics.ts`), so a script may take only one: the
// scripts below run once per lease, all sent together. The client writes them back to back, so
// on one server a round costs one round trip as a script over every lease did, and on a cluster
// each goes straight to its master; a process holds a handful of leases, so the extra calls are
// cheap, and one code path serves both set-ups.

// Renews the lease KEYS[1] if ARGV[1] still holds it; returns 1, or 0 when it does not.
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`;

// Gives the lease KEYS[1] up if ARGV[1] holds it.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

export interface LeaseChanges {
  acquired: number[];
  released: number[];
  /** Partitions this process owned but no longer holds (it stalled past its lease). */
  lost: number[];
}

export class PartitionLeases {
  readonly #redis: Redis;
  readonly #keys: TopicKeys;
  readonly #name: string;
  readonly #leaseMs: number;
  readonly #logger: Logger;
  readonly #owned = new Set<number>();
  /** Partitions this process owns but should hand over. */
  readonly #surplus = new Set<number>();
  #lastRenewal = 0;

  constructor(options: {
    redis: Redis;
    keys: TopicKeys;
    name: string;
    leaseMs: number;
    logger: Logger;
  }) {
    this.#redis = options.redis;
    this.#keys = options.keys;
    this.#name = options.name;
    this.#leaseMs = options.leaseMs;
    this.#logger = options.logger;
  }

  /** Partitions this process may read now. */
  readable(): number[] {
    return [...this.#owned].filter((p) => !this.#surplus.has(p)).sort((a, b) => a - b);
  }

  owns(partition: number): boolean {
    return this.#owned.has(partition);
  }

  /**
   * One round: heartbeat, renew held leases, hand over surplus partitions that `idle` says have
   * no work in flight, and take free ones assigned to this process.
   */
  async tick(idle: (partition: number) => boolean): Promise<LeaseChanges> {
    const changes: LeaseChanges = { acquired: [], released: [], lost: [] };
    try {
      await this.#tick(idle, changes);
      this.#lastRenewal = Date.now();
    } catch (error) {
      // Without Redis the leases cannot be renewed; once they may have run out elsewhere, stop
      // reading rather than risk two readers of one partition.
      if (Date.now() - this.#lastRenewal > this.#leaseMs * 0.8 && this.#owned.size > 0) {
        changes.lost.push(...this.#owned);
        this.#owned.clear();
        this.#surplus.clear();
      }
      this.#logger.warn({ err: error }, 'partition lease round failed');
    }
    return changes;
  }

  async #tick(idle: (partition: number) => boolean, changes: LeaseChanges): Promise<void> {
    const { partitions } = this.#keys;
    const members = (
      (await this.#redis.eval(
        HEARTBEAT_SCRIPT,
        1,
        this.#keys.members,
        this.#name,
        this.#leaseMs,
      )) as string[]
    ).sort();
    const index = members.indexOf(this.#name);
    const desired = new Set(
      partitions
        .map((_, p) => p)
        .filter((p) => members[p % members.length] === this.#name && index >= 0),
    );

    const held = [...this.#owned];
    if (held.length > 0) {
      const renewed = await Promise.all(
        held.map((p) => this.#redis.eval(RENEW, 1, this.#keys.lease(p), this.#name, this.#leaseMs)),
      );
      held.forEach((p, i) => {
        if (renewed[i] !== 1) {
          this.#owned.delete(p);
          this.#surplus.delete(p);
          changes.lost.push(p);
        }
      });
    }

    this.#surplus.clear();
    for (const p of this.#owned) if (!desired.has(p)) this.#surplus.add(p);
    const release = [...this.#surplus].filter(idle);
    if (release.length > 0) {
      await this.#release(release);
      for (const p of release) {
        this.#owned.delete(p);
        this.#surplus.delete(p);
        changes.released.push(p);
      }
    }

    const wanted = [...desired].filter((p) => !this.#owned.has(p));
    if (wanted.length > 0) {
      // One SET per lease, not a pipeline: the leases lie in different slots (see RENEW).
      const results = await Promise.all(
        wanted.map((p) =>
          this.#redis.set(this.#keys.lease(p), this.#name, 'PX', this.#leaseMs, 'NX').then(
            (reply) => [null, reply] as const,
            (error: unknown) => [error, null] as const,
          ),
        ),
      );
      results.forEach(([error, reply], i) => {
        if (!error && reply === 'OK') {
          this.#owned.add(wanted[i]!);
          changes.acquired.push(wanted[i]!);
        }
      });
    }
  }

  /** Gives up every lease and leaves the member set, so others take over at once. */
  async releaseAll(): Promise<void> {
    const held = [...this.#owned];
    this.#owned.clear();
    this.#surplus.clear();
    if (held.length > 0) await this.#release(held);
    await this.#redis.zrem(this.#keys.members, this.#name);
  }

  /** Gives up the leases of these partitions, where this process still holds them. */
  async #release(partitions: readonly number[]): Promise<void> {
    await Promise.all(
      partitions.map((p) => this.#redis.eval(RELEASE, 1, this.#keys.lease(p), this.#name)),
    );
  }
}

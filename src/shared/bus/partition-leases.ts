/**
 * Which partitions of a topic this process reads. Every consumer of a group heartbeats into the
 * topic's member set; each live member gets an even share of the partitions, keeping those it
 * holds, so a scale step moves only the shares that change (`partition-assignment.ts`), and every
 * process computes the same assignment from the members and the lease holders. A lease key per partition (owner name, expiring after
 * `leaseMs`) makes ownership exclusive while views of the member set briefly differ: a partition
 * is taken only once its previous owner released it or its lease ran out.
 *
 * Time comes from Redis (`TIME` inside the scripts), so clock skew between machines does not
 * evict live members.
 *
 * Each lease counts as held only while its last renewal is recent: a partition whose lease was
 * not confirmed for 0.8 × `leaseMs` (its master stopped answering, or Redis is away) is given up
 * before the lease can run out and another process take it. That is checked whenever the
 * consumer asks what it may read or whether a read's entries are still its own, not only once a
 * round. Leases are renewed on a cadence of their own (`renew`, every sixth of the lease), apart
 * from the rounds that heartbeat, hand over and take partitions (`tick`), so a round slowed by a
 * node that does not answer delays no renewal, and one failed renewal costs no lease. On a Redis
 * Cluster the leases lie on different masters, so one master that stops answering must not hold
 * up the others': each renewal is judged on its own, on a connection whose commands time out
 * (the consumer's control connection). Where every master has a replica, a lease taken or renewed
 * counts only once a replica acknowledged it (`replicas`), so a master that resumes after its
 * failover cannot hand out a lease another process holds on the new master (`lease-writes.ts`).
 */
import type { Logger } from '../logger.ts';
import type { Redis } from '../redis.ts';
import type { LeaseWrites } from './lease-writes.ts';
import { HEARTBEAT_SCRIPT } from './members.ts';
import { assignPartitions } from './partition-assignment.ts';
import type { TopicKeys } from './topics.ts';

export interface LeaseChanges {
  acquired: number[];
  released: number[];
  /**
   * Partitions this process owned and gave up since the last round (it stalled past its lease, or
   * another process holds it): also when it holds them again, then they are in `acquired` too.
   */
  lost: number[];
}

export class PartitionLeases {
  readonly #redis: Redis;
  readonly #keys: TopicKeys;
  readonly #name: string;
  readonly #leaseMs: number;
  readonly #logger: Logger;
  readonly #writes: LeaseWrites;
  /** Partitions this process owns, and when (ms, this process' clock) each lease was last confirmed. */
  readonly #owned = new Map<number, number>();
  /** Partitions this process owns but should hand over. */
  readonly #surplus = new Set<number>();
  /** Partitions the consumer was told it holds (acquired and not reported lost or released since). */
  readonly #reported = new Set<number>();
  /**
   * Reported partitions given up since the last round (found stale, or no longer ours): each is
   * reported lost by the next round even when that round holds it again, so the consumer starts
   * a new tenure (reads its pending entries again) rather than carrying on as if nothing happened.
   */
  readonly #givenUp = new Set<number>();

  constructor(options: {
    redis: Redis;
    keys: TopicKeys;
    name: string;
    leaseMs: number;
    /** The lease writes (the heartbeat and the holders' reads go on `redis`). */
    writes: LeaseWrites;
    logger: Logger;
  }) {
    this.#redis = options.redis;
    this.#keys = options.keys;
    this.#name = options.name;
    this.#leaseMs = options.leaseMs;
    this.#logger = options.logger;
    this.#writes = options.writes;
  }

  /** Partitions this process may read now. */
  readable(): number[] {
    return [...this.#owned.keys()]
      .filter((p) => this.#fresh(p) && !this.#surplus.has(p))
      .sort((a, b) => a - b);
  }

  owns(partition: number): boolean {
    return this.#fresh(partition);
  }

  /**
   * Whether this process holds the partition's lease, confirmed within 0.8 × `leaseMs`. A stale
   * one is given up at once (and reported lost by the next round): it stays given up even if a
   * late renewal lands, so its entries go through the hand-over (claimed, read again in order).
   */
  #fresh(partition: number): boolean {
    const confirmedAt = this.#owned.get(partition);
    if (confirmedAt === undefined) return false;
    if (confirmedAt >= Date.now() - this.#leaseMs * 0.8) return true;
    this.#giveUp(partition);
    return false;
  }

  /** Stops holding the partition; the next round reports it lost. */
  #giveUp(partition: number): void {
    this.#owned.delete(partition);
    this.#surplus.delete(partition);
    if (this.#reported.has(partition)) this.#givenUp.add(partition);
  }

  /**
   * One round: heartbeat, hand over surplus partitions that `idle` says have no work in flight,
   * and take free ones assigned to this process. Reports the partitions lost since the last
   * round (a lease not confirmed for 0.8 × `leaseMs`, or found held by another process) and those
   * held now that were not reported held. A partition given up and taken again since the last
   * round (a stall past the lease, a renewal found it gone while the round took it back) is
   * reported both lost and acquired: what was read for it meanwhile was left pending, and only a
   * new tenure reads that again.
   */
  async tick(idle: (partition: number) => boolean): Promise<LeaseChanges> {
    const changes: LeaseChanges = { acquired: [], released: [], lost: [] };
    try {
      await this.#assign(idle, changes);
    } catch (error) {
      this.#logger.warn({ err: error }, 'partition lease round failed');
    }
    // Given up before the lease can run out elsewhere, so two processes never read one partition.
    for (const p of [...this.#owned.keys()]) this.#fresh(p);
    for (const p of [...this.#reported]) {
      if (this.#owned.has(p) && !this.#givenUp.has(p)) continue;
      this.#reported.delete(p);
      changes.lost.push(p);
    }
    this.#givenUp.clear();
    for (const p of this.#owned.keys()) {
      if (this.#reported.has(p)) continue;
      this.#reported.add(p);
      changes.acquired.push(p);
    }
    return changes;
  }

  /**
   * Renews every held lease, each on its own: one that fails or times out is tried again next
   * time. One found held by another process is given up (reported lost by the next round).
   */
  async renew(): Promise<void> {
    const held = [...this.#owned.keys()];
    if (held.length === 0) return;
    const sentAt = Date.now();
    const renewed = await Promise.allSettled(
      held.map((p) => this.#writes.renew(this.#keys.lease(p))),
    );
    renewed.forEach((result, i) => {
      const p = held[i]!;
      if (result.status === 'rejected' || !this.#owned.has(p)) return;
      if (result.value) this.#owned.set(p, sentAt);
      else this.#giveUp(p);
    });
    this.#warnFailed(held, renewed, 'partition lease renewal failed; retried shortly');
  }

  async #assign(idle: (partition: number) => boolean, changes: LeaseChanges): Promise<void> {
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
    // Who holds each lease now: this process knows its own; another's is read (one GET per
    // partition, each to its slot's master). One that cannot be read counts as free: taking it
    // then fails on its lease, and no partition of this process is given up for it.
    const read = await Promise.allSettled(
      partitions.map((_, p) =>
        this.#owned.has(p) ? Promise.resolve(this.#name) : this.#redis.get(this.#keys.lease(p)),
      ),
    );
    const holders = read.map((r) => (r.status === 'fulfilled' ? r.value : null));
    const desired = new Set(
      members.includes(this.#name)
        ? assignPartitions(partitions.length, members, holders).get(this.#name)
        : [],
    );

    this.#surplus.clear();
    for (const p of this.#owned.keys()) if (!desired.has(p)) this.#surplus.add(p);
    const release = [...this.#surplus].filter(idle);
    if (release.length > 0) {
      await this.#release(release);
      for (const p of release) {
        this.#owned.delete(p);
        this.#surplus.delete(p);
        this.#reported.delete(p);
        this.#givenUp.delete(p);
        changes.released.push(p);
      }
    }

    const wanted = [...desired].filter((p) => !this.#owned.has(p));
    if (wanted.length > 0) {
      const sentAt = Date.now();
      const results = await Promise.allSettled(
        wanted.map((p) => this.#writes.acquire(this.#keys.lease(p))),
      );
      // Reported as acquired by `tick`, once it checked what the round left held.
      results.forEach((result, i) => {
        if (result.status === 'fulfilled' && result.value) this.#owned.set(wanted[i]!, sentAt);
      });
      this.#warnFailed(wanted, results, 'could not take partition leases; tried again next round');
    }
  }

  /** One line for the lease writes that failed, with the first error and their partitions. */
  #warnFailed(
    partitions: readonly number[],
    results: readonly PromiseSettledResult<unknown>[],
    message: string,
  ): void {
    const failed = partitions.filter((_, i) => results[i]!.status === 'rejected');
    if (failed.length === 0) return;
    const first = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
    this.#logger.warn({ err: first.reason, partitions: failed }, message);
  }

  /** Gives up every lease and leaves the member set, so others take over at once. */
  async releaseAll(): Promise<void> {
    const held = [...this.#owned.keys()];
    this.#owned.clear();
    this.#surplus.clear();
    this.#reported.clear();
    this.#givenUp.clear();
    if (held.length > 0) await this.#release(held);
    await this.#redis.zrem(this.#keys.members, this.#name);
  }

  /** Gives up the leases of these partitions, where this process still holds them. */
  async #release(partitions: readonly number[]): Promise<void> {
    await Promise.all(partitions.map((p) => this.#writes.release(this.#keys.lease(p))));
  }
}

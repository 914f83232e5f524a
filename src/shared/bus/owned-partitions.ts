/**
 * The partitions a stream consumer (`consumer.ts`) reads, and from where.
 *
 * - Leases (`partition-leases.ts`): one partition has one reader at a time. The lease round
 *   (`round`) hands a partition over only when nothing of it is in flight and no read covering it
 *   is out; otherwise Redis could deliver its next entry to this process after the new reader
 *   took over.
 * - A partition taken is read only once every entry its previous reader left pending is claimed
 *   for this consumer; its cursor is then '0' (its pending entries are read first), then '>'.
 * - Tenures: a partition's tenure is bumped whenever this process stops owning it. A read or a
 *   handler started under an older tenure leaves its entries pending, and a partition taken again
 *   is read only once that older work is over: otherwise a read that was out across the loss
 *   (queued while Redis restarted) is taken for the new tenure's pending read, moving the cursor
 *   past entries left pending, which are then never read; or a later entry of a key overtakes an
 *   earlier one.
 * - Each round sweeps up entries a former reader took after handing over (it stalled past its
 *   lease) and entries pending with this consumer that it is not handling (read in a tenure that
 *   ended): the partition's pending entries are read again.
 */
import type { Logger } from '../logger.ts';
import type { Redis } from '../redis.ts';
import { claimAll, ensureGroups, sweepStrays, type GroupMember } from './group-commands.ts';
import type { LeaseWrites } from './lease-writes.ts';
import { PartitionLeases } from './partition-leases.ts';
import type { TopicKeys } from './topics.ts';

export interface OwnedPartitionsOptions {
  /** Leases, claims and sweeps: the consumer's connection that is never auto-pipelined. */
  control: Redis;
  /** How the leases are taken, renewed and given up (on the control connection, or their own). */
  leaseWrites: LeaseWrites;
  /** Where a group lost with a restarted Redis is created again. */
  redis: Redis;
  keys: TopicKeys;
  group: string;
  /** This consumer's name within the group. */
  name: string;
  leaseMs: number;
  logger: Logger;
}

/** What the consumer does as a round changes what it reads. */
export interface RoundHooks {
  /** A partition released or lost: its reads stop, what waits for it is dropped. */
  ended(partition: number): void;
  /** A partition taken (not ready to read before its claim). */
  acquired(partition: number): void;
  /**
   * Whether an entry pending with this consumer, not in flight, may be held by the consumer
   * elsewhere: deferred, or being fetched back (while any fetch is under way, every entry may be).
   */
  held(partition: number, id: string): boolean;
}

/** A read out: the partitions it covers and when it was sent (ms, this process' clock). */
export interface ReadOut {
  partitions: readonly number[];
  sentAt: number;
}

export class OwnedPartitions {
  readonly #o: OwnedPartitionsOptions;
  readonly #leases: PartitionLeases;
  /** Per owned partition, once claimed: '0' while its pending entries are being read, then '>'. */
  readonly #cursors = new Map<number, string>();
  /** Entries being handled, as `<partition>/<entry id>` (ids repeat across partitions). */
  readonly #handling = new Set<string>();
  /** Per partition, its entries being handled. */
  readonly #busy = new Map<number, number>();
  /**
   * Reads out. Several may cover one partition: on a cluster the loop of a partition lost and
   * taken again may still be winding down its cut read while the new loop reads.
   */
  readonly #reading = new Set<ReadOut>();
  /** Partitions taken whose previous reader's pending entries are not claimed yet. */
  readonly #unclaimed = new Set<number>();
  readonly #tenures = new Map<number, number>();

  constructor(options: OwnedPartitionsOptions) {
    this.#o = options;
    this.#leases = new PartitionLeases({
      redis: options.control,
      writes: options.leaseWrites,
      keys: options.keys,
      name: options.name,
      leaseMs: options.leaseMs,
      logger: options.logger,
    });
  }

  /**
   * Partitions this process may read: leased, confirmed lately, not being handed over (asking
   * gives up a lease found stale, `partition-leases.ts`).
   */
  get leased(): number[] {
    return this.#leases.readable();
  }

  /** Of the partitions `covers` accepts, those `leased` whose claim is done: read them now. */
  ready(covers: (partition: number) => boolean): number[] {
    return this.#leases.readable().filter((p) => covers(p) && this.#cursors.has(p));
  }

  /** Where the next read of a ready partition starts. */
  cursor(partition: number): string {
    return this.#cursors.get(partition)!;
  }

  moveCursor(partition: number, cursor: string): void {
    this.#cursors.set(partition, cursor);
  }

  tenure(partition: number): number {
    return this.#tenures.get(partition) ?? 0;
  }

  /** Whether this process still owns the partition, under the tenure given. */
  current(partition: number, tenure: number): boolean {
    return this.#leases.owns(partition) && this.tenure(partition) === tenure;
  }

  /** Entries being handled, all partitions together. */
  get inFlight(): number {
    return this.#handling.size;
  }

  isHandling(partition: number, id: string): boolean {
    return this.#handling.has(`${partition}/${id}`);
  }

  begin(partition: number, id: string): void {
    this.#handling.add(`${partition}/${id}`);
    this.#busy.set(partition, (this.#busy.get(partition) ?? 0) + 1);
  }

  end(partition: number, id: string): void {
    this.#handling.delete(`${partition}/${id}`);
    this.#busy.set(partition, (this.#busy.get(partition) ?? 1) - 1);
  }

  /** A read is being sent; `readEnded` once it is answered or abandoned. */
  readSent(partitions: readonly number[]): ReadOut {
    const read = { partitions, sentAt: Date.now() };
    this.#reading.add(read);
    return read;
  }

  readEnded(read: ReadOut): void {
    this.#reading.delete(read);
  }

  /** Whether a read out covers a partition (one sent before `sentBefore`, when given). */
  isRead(partition: number, sentBefore = Infinity): boolean {
    for (const read of this.#reading)
      if (read.sentAt < sentBefore && read.partitions.includes(partition)) return true;
    return false;
  }

  /** Nothing of the partition in flight and no read covering it out. */
  #idle(partition: number): boolean {
    return (this.#busy.get(partition) ?? 0) === 0 && !this.isRead(partition);
  }

  /** Renews the leases held. */
  renew(): Promise<void> {
    return this.#leases.renew();
  }

  /** Hands every lease back. */
  releaseAll(): Promise<void> {
    return this.#leases.releaseAll();
  }

  /** A lease round: partitions taken and handed over, claims, sweeps (see the header). */
  async round(hooks: RoundHooks): Promise<void> {
    const { logger } = this.#o;
    const changes = await this.#leases.tick((p) => this.#idle(p));
    for (const p of [...changes.released, ...changes.lost]) {
      this.#cursors.delete(p);
      this.#unclaimed.delete(p);
      this.#tenures.set(p, this.tenure(p) + 1);
      // A lost partition's read may still be blocked: cutting it ends the loop now, and what it
      // was handed stays pending for the next reader (the tenure makes sure of that).
      hooks.ended(p);
    }
    for (const p of changes.acquired) {
      this.#unclaimed.add(p);
      hooks.acquired(p);
    }
    if (changes.lost.length > 0) {
      logger.warn(
        { partitions: changes.lost },
        'partition leases lost; their entries go to the next reader',
      );
    }
    // A partition is read only once its previous reader's pending entries are ours; a failed
    // claim (Redis restarting) is retried every round until it succeeds.
    for (const p of [...this.#unclaimed]) {
      // Taken again after a loss: read it only once the work of the former tenure has drained,
      // or an entry still in flight would be skipped by the read from the start and never read.
      if (!this.#idle(p)) continue;
      try {
        await claimAll(this.#o.control, this.member(p), logger);
        this.#unclaimed.delete(p);
        this.#cursors.set(p, '0');
      } catch (error) {
        if (error instanceof Error && error.message.startsWith('NOGROUP')) {
          const { redis, keys, group } = this.#o;
          await ensureGroups(redis, [keys.partitions[p]!], group).catch(() => undefined);
        }
        logger.warn(
          { err: error, partition: p },
          'could not claim a partition’s pending entries; retrying next round',
        );
      }
    }
    // All at once: a partition on a master that does not answer holds up only its own sweep.
    const swept = this.#leases
      .readable()
      .filter((p) => !this.#unclaimed.has(p) && this.#cursors.get(p) === '>');
    await Promise.all(
      swept.map(async (p) => {
        try {
          if (await this.#sweep(p, hooks)) this.#cursors.set(p, '0');
        } catch (error) {
          logger.warn({ err: error, partition: p }, 'pending sweep failed');
        }
      }),
    );
    if (changes.acquired.length + changes.released.length > 0) {
      logger.debug(
        { acquired: changes.acquired, released: changes.released },
        'partitions rebalanced',
      );
    }
  }

  /** The group member this consumer is on a partition's stream. */
  member(partition: number): GroupMember {
    return {
      stream: this.#o.keys.partitions[partition]!,
      group: this.#o.group,
      name: this.#o.name,
    };
  }

  /** @returns whether entries to read again were found. */
  #sweep(partition: number, hooks: RoundHooks): Promise<boolean> {
    const { control, leaseMs, logger } = this.#o;
    // An entry a read holds (a linger) or the consumer holds (deferred, being fetched) is pending
    // and not in flight. A read sent less than a lease ago holds none of the rows looked at (each
    // was handed over a lease ago or more), so only older reads count: the read loop always has a
    // blocking read out, and waiting for none would leave such entries pending for good.
    const orphaned = (id: string): boolean =>
      !this.isRead(partition, Date.now() - leaseMs) &&
      !this.isHandling(partition, id) &&
      !hooks.held(partition, id);
    return sweepStrays(control, this.member(partition), leaseMs, orphaned, logger);
  }
}

/**
 * How a partition lease is taken, renewed and given up in Redis: a key per partition holding its
 * reader's name, expiring unless renewed (`partition-leases.ts` decides which to take and keeps
 * the books).
 *
 * With `replicas` > 0, a lease taken or renewed counts only once that many replicas acknowledged
 * it (`WAIT`, in the same pipeline: `../replica-wait.ts`). A master frozen past its failover
 * answers, as it resumes, the commands queued on its sockets as if it were still the master,
 * before it hears of the promoted replica: a lease free on its stale copy is taken there while
 * another process holds it on the new master, and two processes would read one partition. Its
 * replica has gone to the promoted one, so no replica acknowledges what it wrote (the `WAIT` gives
 * up, or is unblocked with an error as the node turns replica) and the lease does not count.
 */
import { BotwireError } from '../errors.ts';
import type { Redis } from '../redis.ts';
import { writeAcknowledged } from '../replica-wait.ts';

// Each lease key lies in its partition's slot (`topics.ts`), so a script may take only one: the
// scripts run once per lease, all sent together. The client writes them back to back, so on one
// server a round costs one round trip as a script over every lease did, and on a cluster each
// goes straight to its master.

// Renews the lease KEYS[1] if ARGV[1] still holds it; returns 1, or 0 when it does not.
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`;

// Takes the lease KEYS[1] for ARGV[1] when it is free or ARGV[1]'s already (a renewal this process
// stopped waiting for may have landed after it gave the partition up); returns 1, or 0 when another
// process holds it.
const ACQUIRE = `
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;

// Gives the lease KEYS[1] up if ARGV[1] holds it.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

export interface LeaseWriteOptions {
  /**
   * The connection the leases go on, whose commands time out: the consumer's control connection,
   * or with `replicas` one of the leases' own, as a `WAIT` holds its connection to that node.
   */
  redis: Redis;
  /** This process' name: the value of the leases it holds. */
  holder: string;
  leaseMs: number;
  /** Replicas that must acknowledge a lease taken or renewed (0: none, nothing waits). */
  replicas: number;
  /** How long a lease write waits for them (ms). */
  waitMs: number;
}

export class LeaseWrites {
  readonly #o: LeaseWriteOptions;

  constructor(options: LeaseWriteOptions) {
    this.#o = options;
  }

  /**
   * Takes the lease at `key` when it is free or this process' already.
   * @returns whether this process holds it now.
   * @throws when Redis does not answer, or (`BW_ERR_NO_REPLICA`) it was taken and too few
   * replicas acknowledged it: not held, for now.
   */
  acquire(key: string): Promise<boolean> {
    return this.#write(ACQUIRE, key);
  }

  /**
   * Renews the lease at `key` if this process holds it.
   * @returns false when another process holds it (or nobody).
   * @throws as `acquire`: neither renewed nor lost, for now.
   */
  renew(key: string): Promise<boolean> {
    return this.#write(RENEW, key);
  }

  /** Gives the lease at `key` up if this process holds it. */
  async release(key: string): Promise<void> {
    await this.#o.redis.eval(RELEASE, 1, key, this.#o.holder);
  }

  async #write(script: string, key: string): Promise<boolean> {
    const { redis, holder, leaseMs, replicas, waitMs } = this.#o;
    if (replicas <= 0) return (await redis.eval(script, 1, key, holder, leaseMs)) === 1;
    const { answer, acknowledged } = await writeAcknowledged(
      redis,
      (pipeline) => pipeline.eval(script, 1, key, holder, leaseMs),
      { replicas, timeoutMs: waitMs },
    );
    // A lease not held is not held, however many replicas heard of it.
    if (answer !== 1) return false;
    if (acknowledged < replicas) {
      throw new BotwireError(
        'BW_ERR_NO_REPLICA',
        `lease ${key}: ${acknowledged} of ${replicas} replicas acknowledged it within ${waitMs} ms`,
        { details: { key, acknowledged, replicas } },
      );
    }
    return true;
  }
}

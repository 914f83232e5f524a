/**
 * The one stream consumer every component uses: it owns the delivery rules so that handlers stay
 * plain functions (message in, messages to publish out).
 *
 * - Partitions: the process reads the partitions of the topic it holds leases on
 *   (`owned-partitions.ts`); one partition has one reader at a time, and a message's ordering key
 *   picks its partition, so one conversation is handled in arrival order even with several
 *   processes. Inside the process, messages with the same key run one after another
 *   (`keyed-runner.ts`); different keys run side by side up to `concurrency`.
 * - Fairness between bots: one bot (`fairnessKeyOf`) runs at most `perBotConcurrency` handlers at
 *   once, and bots waiting for a slot take turns (`fair-slots.ts`). When the entries in flight
 *   reach their bound and none finishes for `STALL_MS` while a bot holds more than its share of
 *   them, the consumer reads on: the entries of bots at their share stay pending in Redis and are
 *   fetched again as their admitted ones finish (`bot-admission.ts`), the other bots' are handled,
 *   so one bot's stalled backlog never stops the reading of the others' messages.
 * - Reading: XREADGROUP BLOCK on a connection of its own. On one Redis server, one read covers
 *   every partition the process reads. On a Redis Cluster each partition lies in its own slot and
 *   one XREADGROUP may only name keys of one slot, so each partition is read by its own loop on
 *   its own blocking connection: a new entry in any partition is read at once, never after
 *   another partition's BLOCK ran out. On taking a partition over, the consumer first claims
 *   (XAUTOCLAIM) and handles every entry its previous reader left pending, in stream order; each
 *   lease round also sweeps up entries left pending (`owned-partitions.ts`).
 * - Each entry read is decoded and validated (`delivery.ts`), which tells its bot; once admitted,
 *   `delivery.ts` handles it: the handler run, its messages published, then the entry XACKed;
 *   retried in place, holding back the later messages of the same key so order is kept, or
 *   dead-lettered. The group's pending-list commands are in `group-commands.ts`.
 * - `close()` stops reading, lets in-flight handlers finish (retries waiting for their backoff are
 *   left pending for the next reader), hands the leases back and closes its blocking connection.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.ts';
import { duplicateRedis, isCluster, type Redis } from '../redis.ts';
import { mastersShortOfReplicas } from '../replica-wait.ts';
import type { SchemaRegistry } from '../schemas.ts';
import { BotAdmission, type DeferredRef } from './bot-admission.ts';
import { Delivery, type Decoded, type Handler, type Outcome } from './delivery.ts';
import { LeaseWrites } from './lease-writes.ts';
import { entriesByStream, parseEntries, type Entry } from './entries.ts';
import { ensureGroups, pendingDeliveries, rereadPending } from './group-commands.ts';
import { KeyedRunner } from './keyed-runner.ts';
import { OwnedPartitions } from './owned-partitions.ts';
import type { Producer } from './producer.ts';
import {
  fairnessKeyOf,
  groupOf,
  orderingKeyOf,
  topicKeys,
  type Topic,
  type TopicKeys,
} from './topics.ts';

export interface ConsumerOptions<T> {
  /** Connection for non-blocking commands; the consumer duplicates it for its blocking reads. */
  redis: Redis;
  producer: Producer;
  schemas: SchemaRegistry;
  logger: Logger;
  topic: Topic;
  /** Consumer group; defaults to the topic's component. */
  group?: string;
  /** This consumer's name within the group; unique per process. */
  name: string;
  /** Key prefix, see `STREAM_PREFIX`. */
  prefix: string;
  /** Partitions of the topic, see `TOPIC_PARTITIONS`. */
  partitions: number;
  handler: Handler<T>;
  /** Entries per read. @defaultValue 64 */
  batchSize?: number;
  /** Handlers running at once. @defaultValue 16 */
  concurrency?: number;
  /**
   * Handlers of one bot running at once, at most `concurrency`; the other slots stay free for the
   * other bots even while this one has more waiting. @defaultValue half of `concurrency`, rounded up
   */
  perBotConcurrency?: number;
  /**
   * The bot a message is for, which slots are shared by; messages without one share one bucket.
   * @defaultValue `fairnessKeyOf` of `topics.ts`
   */
  fairnessKeyOf?: (message: T) => string | undefined;
  /** XREADGROUP BLOCK time (ms). @defaultValue 1000 */
  blockMs?: number;
  /**
   * After a read that found new entries, fewer in all than `batchSize`, wait this long (ms) before
   * the next read, so that entries arriving meanwhile are read, handled and committed together.
   * @defaultValue 0
   */
  lingerMs?: number;
  /** Partition lease time (ms): how long a dead process's partitions wait for a new reader. @defaultValue 10000 */
  leaseMs?: number;
  /**
   * Replicas that must acknowledge a partition lease taken or renewed before it counts (`WAIT`,
   * see `lease-writes.ts`); 1 where every master has a replica. @defaultValue 0
   */
  leaseReplicas?: number;
  /** First retry delay (ms), doubled per delivery, at most 30 s. @defaultValue 500 */
  retryBaseMs?: number;
  /** Deliveries before an entry is dead-lettered. @defaultValue 5 */
  maxDeliveries?: number;
  /** Approximate length kept of the dead-letter stream (entries). @defaultValue 100000 */
  deadMaxLen?: number;
  /** Called after each entry, for metrics. */
  onOutcome?: (outcome: Outcome, topic: Topic) => void;
  /**
   * Called once an entry is in the dead-letter stream, with its dead-letter id (`p<n>-<ms>-<seq>`)
   * and the error code (the live `dead-letter` event); must not throw.
   */
  onDeadLettered?: (topic: Topic, deadId: string, code: string) => void;
}

/**
 * Entries deferred (pending, ids only in memory: see `bot-admission.ts`) past which reading waits
 * for some to be handled; a few hundred kilobytes.
 */
const MAX_DEFERRED = 10_000;

/**
 * How long (ms) the entries in flight may stay at their bound with none finishing before the
 * consumer reads on past it, deferring the entries of bots at their share. Far above a handler's
 * usual time, so a busy bot that keeps up is never deferred (a deferred entry is read twice);
 * short against a reply's time, as another bot's message may wait this long to be read.
 */
const STALL_MS = 250;

/**
 * `promise`, or a rejection as soon as `signal` is aborted. A stopped read loop disconnects its
 * connection, but a cluster connection disconnected while it has no node up (a master failing
 * over) never answers the command it queued: without this the loop, and its partition's count of
 * reads out, would wait for it for ever, and the partition would never be read again.
 */
async function untilAborted<T>(signal: AbortSignal, promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined); // its late failure, once abandoned, is nobody's concern
  if (signal.aborted) throw new Error('read loop stopped');
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        onAbort = () => reject(new Error('read loop stopped'));
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}

/**
 * A read loop: the partitions it reads, on a blocking connection of its own. On one server one
 * loop reads every partition; on a cluster each owned partition has its own (see the header).
 */
interface Reader {
  /** The partitions this loop may read (those it may read now are picked from them). */
  covers: (partition: number) => boolean;
  /** Never auto-pipelined, see `#startReader`. */
  connection: Redis;
  /** Aborted when the loop should end: its partition was released or lost, or close(). */
  stop: AbortController;
  done: Promise<void>;
}

/** A consumer-group consumer of one topic. Call `start()` once and `close()` when done. */
export class StreamConsumer<T> {
  readonly #o: Required<Omit<ConsumerOptions<T>, 'onOutcome' | 'onDeadLettered'>> &
    Pick<ConsumerOptions<T>, 'onOutcome' | 'onDeadLettered'>;
  /** Entries in flight (queued or running) past which reading waits. */
  readonly #inFlightMax: number;
  /**
   * Entries in flight past which even a read past the bound defers every entry: what reads within
   * the bound can bring on top of it (a batch per partition, from one read over all of them or one
   * per partition's loop), plus the bound again for the other bots' shares.
   */
  readonly #inFlightHardMax: number;
  readonly #admission: BotAdmission;
  /** Fetches of deferred entries under way. */
  readonly #fetches = new Set<Promise<void>>();
  readonly #keys: TopicKeys;
  /** Read loops: `all` on one server, one per owned partition on a cluster. */
  readonly #readers = new Map<number | 'all', Reader>();
  /** Read loops stopped and not over yet, which close() waits for. */
  readonly #stopping = new Set<Promise<void>>();
  /** Leases, heartbeats and claims: never queued behind the handlers' auto-pipelined commands. */
  readonly #control: Redis;
  /** Where the leases go when a replica must acknowledge them: a `WAIT` holds its connection. */
  readonly #leaseConnection: Redis | undefined;
  readonly #runner: KeyedRunner;
  /** Which partitions this process reads, from where, under which tenure, and what is in flight. */
  readonly #owned: OwnedPartitions;
  readonly #delivery: Delivery<T>;
  readonly #stop = new AbortController();
  /**
   * When the current linger (`lingerMs`) ends. On one server the one read loop lingers by pausing;
   * on a cluster the other partitions' loops are blocked in reads meanwhile and would hand over
   * what they read at once, so what they read before this time waits for it: entries arriving
   * during a linger are handed over together, whichever partition they are in.
   */
  #lingerUntil = 0;
  /** Read loops waiting for an entry in flight to end: every one is woken. */
  readonly #wakers = new Set<() => void>();
  #loops: Promise<void> | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: ConsumerOptions<T>) {
    this.#o = {
      group: groupOf(options.topic),
      batchSize: 64,
      concurrency: 16,
      blockMs: 1000,
      lingerMs: 0,
      leaseMs: 10_000,
      leaseReplicas: 0,
      retryBaseMs: 500,
      maxDeliveries: 5,
      deadMaxLen: 100_000,
      perBotConcurrency: Math.ceil((options.concurrency ?? 16) / 2),
      fairnessKeyOf,
      ...options,
    };
    const { batchSize, concurrency, perBotConcurrency } = this.#o;
    const perBot = Math.min(perBotConcurrency, concurrency);
    this.#inFlightMax = Math.max(batchSize, concurrency * 4);
    this.#inFlightHardMax = 2 * this.#inFlightMax + batchSize * options.partitions;
    this.#admission = new BotAdmission({
      perBot: Math.max(perBot, Math.ceil((this.#inFlightMax * perBot) / concurrency)),
    });
    this.#keys = topicKeys(options.prefix, options.topic, options.partitions);
    // A lease must be renewed within CONSUMER_LEASE_MS whatever the handlers are doing: on the
    // shared connection an auto-pipeline holds each command until the one in flight is answered,
    // and under load the renewal could wait long enough for the lease to run out. Its commands
    // time out: a node that stops answering (frozen, cut off) must not hold up the lease round,
    // and with it the renewals of the partitions on the other masters of a cluster.
    // A tenth of the lease: a renewal waits at most that long, so the leases on the masters that
    // answer are renewed every sixth of a lease or so, well before they are given up at 0.8.
    const commandTimeout = Math.max(150, Math.floor(this.#o.leaseMs / 10));
    this.#control = duplicateRedis(options.redis, {
      connectionName: `${options.name}:control`,
      enableAutoPipelining: false,
      commandTimeout,
    });
    if (this.#o.leaseReplicas > 0) {
      this.#leaseConnection = duplicateRedis(options.redis, {
        connectionName: `${options.name}:leases`,
        enableAutoPipelining: false,
        commandTimeout,
      });
    }
    this.#runner = new KeyedRunner({ concurrency, perBot });
    const { redis, producer, schemas, logger, topic, group, name, handler } = this.#o;
    this.#delivery = new Delivery({
      redis,
      producer,
      schemas,
      logger,
      topic,
      group,
      name,
      handler,
      keys: this.#keys,
      retryBaseMs: this.#o.retryBaseMs,
      maxDeliveries: this.#o.maxDeliveries,
      deadMaxLen: this.#o.deadMaxLen,
      pause: (ms) => this.#pause(ms),
      onOutcome: this.#o.onOutcome,
      onDeadLettered: this.#o.onDeadLettered,
    });
    this.#owned = new OwnedPartitions({
      control: this.#control,
      leaseWrites: new LeaseWrites({
        redis: this.#leaseConnection ?? this.#control,
        holder: name,
        leaseMs: this.#o.leaseMs,
        replicas: this.#o.leaseReplicas,
        // Within the command's timeout, so a missing replica reads as such, not as a silent node.
        waitMs: Math.floor(commandTimeout / 2),
      }),
      redis,
      keys: this.#keys,
      group,
      name,
      leaseMs: this.#o.leaseMs,
      logger,
    });
  }

  /** Partitions this consumer reads now. */
  get partitions(): number[] {
    return this.#owned.leased;
  }

  /** Creates the groups if missing, takes its partitions, then reads in the background. */
  async start(): Promise<void> {
    if (this.#loops) throw new Error('consumer already started');
    await ensureGroups(this.#o.redis, this.#keys.partitions, this.#o.group);
    const { leaseReplicas, logger } = this.#o;
    if (leaseReplicas > 0) {
      // Not refused: a replica may be syncing. Its master's partitions wait for it meanwhile.
      // A master that does not answer now is left to the lease rounds.
      const short = await mastersShortOfReplicas(this.#control, leaseReplicas).catch(() => []);
      if (short.length > 0) {
        logger.warn(
          { masters: short, replicas: leaseReplicas, topic: this.#o.topic },
          'masters with fewer replicas than CONSUMER_LEASE_REPLICAS: no lease on them counts, so their partitions are not read until a replica is back',
        );
      }
    }
    // On one server a single loop reads every partition (Redis outside cluster mode checks no
    // slots, so one XREADGROUP over all of them is the cheapest); on a cluster `#rebalance`
    // starts a loop per partition as it is taken.
    if (!isCluster(this.#o.redis)) this.#startReader('all', () => true);
    await this.#rebalance();
    this.#loops = Promise.all([this.#leaseLoop(), this.#renewLoop()]).then(() => undefined);
  }

  /** Stops reading, waits for in-flight handlers, hands back its leases. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#stop.abort();
    this.#wakeReader();
    // Cuts blocked XREADGROUPs short; entries they may have been handed stay pending and are
    // claimed by the partition's next reader, so nothing is lost.
    for (const key of [...this.#readers.keys()]) this.#stopReader(key);
    const step = async (what: string, fn: () => Promise<unknown>): Promise<void> => {
      try {
        await fn();
      } catch (error) {
        this.#o.logger.warn({ err: error }, `consumer close: ${what} failed`);
      }
    };
    await step('loops', async () => this.#loops);
    // After the lease loop: a round under way at close() may have started a reader.
    for (const key of [...this.#readers.keys()]) this.#stopReader(key);
    await step('read loops', () => Promise.all(this.#stopping));
    await step('fetches', () => Promise.all(this.#fetches));
    await step('in-flight work', () => this.#runner.idle());
    await step('leases', () => this.#owned.releaseAll());
    await step('control connection', () => this.#control.quit());
    const leases = this.#leaseConnection;
    if (leases) await step('lease connection', () => leases.quit());
  }

  get #closed(): boolean {
    return this.#stop.signal.aborted;
  }

  /** Waits `ms`, or less when `signal` (by default close()) is aborted. */
  async #pause(ms: number, signal: AbortSignal = this.#stop.signal): Promise<void> {
    try {
      await sleep(ms, undefined, { signal });
    } catch {
      // aborted by close()
    }
  }

  async #leaseLoop(): Promise<void> {
    while (!this.#closed) {
      await this.#pause(Math.max(50, Math.floor(this.#o.leaseMs / 3)));
      if (!this.#closed) await this.#rebalance();
    }
  }

  /** Renews the held leases every sixth of a lease, whatever the rounds are waiting on. */
  async #renewLoop(): Promise<void> {
    while (!this.#closed) {
      await this.#pause(Math.max(50, Math.floor(this.#o.leaseMs / 6)));
      if (!this.#closed) await this.#owned.renew();
    }
  }

  /** A lease round (`owned-partitions.ts`), starting and stopping read loops as it goes. */
  #rebalance(): Promise<void> {
    return this.#owned.round({
      ended: (p) => {
        this.#stopReader(p);
        this.#admission.dropPartition(p);
        this.#wakeReader();
      },
      acquired: (p) => {
        // On a cluster a partition gets its loop (and connection) when taken, not before.
        if (!this.#readers.has('all') && !this.#closed) this.#startReader(p, (q) => q === p);
      },
      held: (p, id) => this.#fetches.size > 0 || this.#admission.isDeferred(p, id),
    });
  }

  /** Starts a read loop for the partitions `covers` accepts, on a new blocking connection. */
  #startReader(key: number | 'all', covers: (partition: number) => boolean): void {
    if (this.#readers.has(key)) return;
    const reader: Reader = {
      covers,
      // Never auto-pipelined: ioredis keeps one auto-pipeline in flight per connection, so a
      // blocking XREADGROUP in it would hold every command queued behind it for up to BLOCK ms.
      connection: duplicateRedis(this.#o.redis, {
        connectionName: `${this.#o.name}:blocking${key === 'all' ? '' : `:p${key}`}`,
        enableAutoPipelining: false,
      }),
      stop: new AbortController(),
      done: Promise.resolve(),
    };
    reader.done = this.#readLoop(reader).catch((error: unknown) =>
      this.#o.logger.error({ err: error, topic: this.#o.topic }, 'read loop failed'),
    );
    this.#readers.set(key, reader);
  }

  /** Ends a read loop: cuts its blocked read short and closes its connection. */
  #stopReader(key: number | 'all'): void {
    const reader = this.#readers.get(key);
    if (!reader) return;
    this.#readers.delete(key);
    reader.stop.abort();
    reader.connection.disconnect();
    const done = reader.done.finally(() => this.#stopping.delete(done));
    this.#stopping.add(done);
    this.#wakeReader();
  }

  async #readLoop(reader: Reader): Promise<void> {
    const { group, name, batchSize, blockMs, lingerMs } = this.#o;
    const stop = AbortSignal.any([this.#stop.signal, reader.stop.signal]);
    let failures = 0;
    /** In flight at the bound with none finishing for STALL_MS, while a bot is over its share. */
    let stalled = false;
    /**
     * The last read held its entries until a linger's end, or this loop lingered after it (see
     * `#lingerUntil`): the next read hands over at once.
     */
    let held = false;
    while (!stop.aborted) {
      const partitions = this.#owned.ready(reader.covers);
      if (partitions.length === 0) {
        await this.#pause(Math.min(blockMs, 200), stop);
        continue;
      }
      const full = this.#owned.inFlight >= this.#inFlightMax;
      if (!full) stalled = false;
      if (this.#admission.deferred >= MAX_DEFERRED || (full && !stalled)) {
        const woken = await this.#waitForWake(full ? STALL_MS : undefined);
        if (!woken && this.#admission.overShare()) stalled = true;
        continue;
      }
      const cursors = partitions.map((p) => this.#owned.cursor(p));
      const tenures = partitions.map((p) => this.#owned.tenure(p));
      const history = cursors.some((c) => c !== '>');
      const streams = partitions.map((p) => this.#keys.partitions[p]!);
      try {
        const out = this.#owned.readSent(partitions);
        /** Per partition read, its entries. */
        let found: Entry[][];
        let lingered = false;
        try {
          const reply = await untilAborted(
            stop,
            reader.connection.call(
              'XREADGROUP',
              'GROUP',
              group,
              name,
              'COUNT',
              batchSize,
              ...(history ? [] : ['BLOCK', blockMs]),
              'STREAMS',
              ...streams,
              ...cursors,
            ),
          );
          // The reads of a cluster's partitions share one linger (see `#lingerUntil`): new entries
          // read during another loop's linger wait for its end, then go with that loop's. Still
          // counted as read meanwhile, so their partition is not handed over with them held.
          const byStream = entriesByStream(reply);
          found = streams.map((stream) => parseEntries(byStream.get(stream)));
          const read = found.reduce((n, entries) => n + entries.length, 0);
          const wait = this.#lingerUntil - Date.now();
          // Not right after such a wait: what is read then was waiting already at the linger's end.
          if (!history && !held && read > 0 && read < batchSize && wait > 0) {
            await this.#pause(wait, stop);
            lingered = true;
          }
        } finally {
          this.#owned.readEnded(out);
        }
        failures = 0;
        held = lingered;
        let fresh = 0;
        for (const [i, p] of partitions.entries()) {
          // Lost while the read was out (this process stalled past its lease): leave the entries
          // pending; the partition's new reader (maybe this process again) reads them.
          if (!this.#owned.current(p, tenures[i]!)) continue;
          const entries = found[i]!;
          // By the cursor the read was sent with: a sweep may set it to '0' while a blocking read
          // is out, and that read's new entries neither end nor move the pending read it asked.
          if (cursors[i] === '>') {
            fresh += entries.length;
            this.#schedule(p, entries, undefined, full);
          } else if (entries.length === 0) {
            this.#owned.moveCursor(p, '>');
          } else {
            this.#owned.moveCursor(p, entries[entries.length - 1]!.id);
            const counts = await pendingDeliveries(this.#o.redis, this.#owned.member(p), entries);
            // Lost (and maybe taken again) while the counts were read: as above.
            if (!this.#owned.current(p, tenures[i]!)) continue;
            this.#schedule(p, entries, counts, full);
          }
        }
        // Not after a read of pending entries: those are drained at once.
        // Only one linger at a time: entries handed over during another loop's join it.
        const lingering = Date.now() < this.#lingerUntil;
        if (lingerMs > 0 && !history && fresh > 0 && fresh < batchSize && !lingered && !lingering) {
          this.#lingerUntil = Date.now() + lingerMs;
          await this.#pause(lingerMs, stop);
          // What this loop reads next was waiting at the linger's end: it must not join a linger
          // another loop starts meanwhile.
          held = true;
        }
      } catch (error) {
        if (stop.aborted) break;
        if (error instanceof Error && error.message.startsWith('NOGROUP')) {
          // A Redis without persistence restarted: recreate the groups and read again.
          await ensureGroups(this.#o.redis, streams, group).catch(() => undefined);
          continue;
        }
        failures += 1;
        this.#o.logger.warn({ err: error, topic: this.#o.topic }, 'read failed; retrying');
        await this.#pause(Math.min(100 * 2 ** failures, 5000), stop);
      }
    }
  }

  /**
   * Hands the entries read to the runner, or defers them (see `bot-admission.ts`). In a `fair`
   * read (past the in-flight bound) a bot at its share is deferred, and the entries in flight are
   * kept under `#inFlightHardMax`.
   */
  #schedule(
    partition: number,
    entries: readonly Entry[],
    counts: Map<string, number> | undefined,
    fair: boolean,
  ): void {
    const tenure = this.#owned.tenure(partition);
    for (const entry of entries) {
      if (this.#owned.isHandling(partition, entry.id)) continue;
      if (this.#admission.isDeferred(partition, entry.id)) continue;
      const deliveries = counts ? counts.get(entry.id) : 1;
      if (deliveries === undefined) continue; // acknowledged meanwhile
      const decoded = this.#delivery.decode(entry);
      const bot = this.#botOf(decoded);
      const room = !fair || this.#owned.inFlight < this.#inFlightHardMax;
      if (!this.#admission.admit(bot, { partition, id: entry.id, tenure }, { fair, room })) {
        continue;
      }
      this.#start(partition, entry, decoded, bot, deliveries, counts === undefined, tenure);
    }
  }

  #botOf(decoded: Decoded<T>): string {
    return (decoded.ok ? this.#o.fairnessKeyOf(decoded.message) : undefined) ?? '';
  }

  /** Hands an admitted entry to the runner. */
  #start(
    partition: number,
    entry: Entry,
    decoded: Decoded<T>,
    bot: string,
    deliveries: number,
    fresh: boolean,
    tenure: number,
  ): void {
    // Closing, or this process lost the partition since the entry was read (another process may
    // read it now, or this one again from the pending list): the entry is left pending.
    const mine = (): boolean => !this.#closed && this.#owned.current(partition, tenure);
    this.#owned.begin(partition, entry.id);
    void this.#runner
      .run(
        decoded.ok ? orderingKeyOf(decoded.message) : undefined,
        () => this.#delivery.handle({ entry, decoded, partition, deliveries, fresh, mine }),
        bot,
      )
      .catch((error: unknown) =>
        this.#o.logger.error({ err: error, msgId: entry.id }, 'entry handling failed'),
      )
      .finally(() => {
        this.#owned.end(partition, entry.id);
        this.#admission.finished(bot);
        this.#fetchDeferred();
        this.#wakeReader();
      });
  }

  /**
   * Waits until an entry in flight ends (or close), at most `ms` when given.
   * @returns false when the time ran out first.
   */
  async #waitForWake(ms: number | undefined): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    let wake: (() => void) | undefined;
    const woken = await new Promise<boolean>((resolve) => {
      wake = () => resolve(true);
      this.#wakers.add(wake);
      if (ms !== undefined) timer = setTimeout(() => resolve(false), ms);
    });
    clearTimeout(timer);
    this.#wakers.delete(wake!);
    return woken;
  }

  /** Wakes every read loop waiting in `#waitForWake` (each has its own partitions to read). */
  #wakeReader(): void {
    for (const wake of this.#wakers) wake();
    this.#wakers.clear();
  }

  /** Fetches the deferred entries of every bot that has room for some now. */
  #fetchDeferred(): void {
    if (this.#closed) return;
    for (const bot of this.#admission.ready()) {
      const refs = this.#admission.take(bot);
      if (refs.length === 0) continue;
      const fetch = this.#fetch(bot, refs).finally(() => this.#fetches.delete(fetch));
      this.#fetches.add(fetch);
    }
  }

  /**
   * Reads deferred entries again (XRANGE, which leaves their delivery count alone) with their
   * delivery counts, and hands those still pending for this consumer, in a partition it still
   * reads under the same tenure, to the runner in their original order.
   */
  async #fetch(bot: string, refs: readonly DeferredRef[]): Promise<void> {
    const found = new Map<string, { entry: Entry; deliveries: number | undefined }>();
    try {
      const byPartition = new Map<number, DeferredRef[]>();
      for (const ref of refs)
        byPartition.set(ref.partition, [...(byPartition.get(ref.partition) ?? []), ref]);
      for (const [p, group] of byPartition) {
        const reread = await rereadPending(
          this.#o.redis,
          this.#owned.member(p),
          group.map(({ id }) => id),
        );
        // Trimmed away: handled like a history read hands it back, without data (dead-lettered).
        for (const [id, hit] of reread) found.set(`${p}/${id}`, hit);
      }
    } catch (error) {
      this.#o.logger.warn({ err: error, bot }, 'could not fetch deferred entries; retrying');
      this.#admission.putBack(bot, refs);
      await this.#pause(this.#o.retryBaseMs);
      this.#fetchDeferred();
      return;
    }
    let started = 0;
    for (const ref of refs) {
      const hit = found.get(`${ref.partition}/${ref.id}`);
      const current = this.#owned.current(ref.partition, ref.tenure);
      if (this.#closed || !current || !hit || hit.deliveries === undefined) continue;
      if (this.#owned.isHandling(ref.partition, ref.id)) continue;
      this.#start(
        ref.partition,
        hit.entry,
        this.#delivery.decode(hit.entry),
        bot,
        hit.deliveries,
        false,
        ref.tenure,
      );
      started += 1;
    }
    this.#admission.fetched(bot, refs, started);
    // Entries skipped above gave their room back, and entries that ended during the fetch made
    // room that no later end may claim: fetch again now.
    this.#fetchDeferred();
  }
}

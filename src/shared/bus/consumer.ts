/**
 * The one stream consumer every component uses: it owns the delivery rules so that handlers stay
 * plain functions (message in, messages to publish out).
 *
 * - Reads through the topic's consumer group: first this consumer's own pending entries (left by
 *   an earlier run under the same name), then new ones with XREADGROUP BLOCK on its own
 *   connection.
 * - Decodes `data` and validates it against the topic's schema; a malformed or invalid message is
 *   dead-lettered at once, since no retry can fix it.
 * - Runs the handler, publishes what it returns, then XACKs. A handler that throws a retryable
 *   error leaves the entry pending; entries idle past `claimIdleMs` are reclaimed with XAUTOCLAIM
 *   by any consumer of the group (this one included) and retried.
 * - Redis counts deliveries. When the `maxDeliveries`-th delivery fails, or an unrecoverable error
 *   is thrown, the entry moves to the dead-letter stream with its reason, in one MULTI with the
 *   XACK, so it is never both lost and acknowledged.
 * - `close()` stops reading, lets in-flight handlers finish, and closes its blocking connection.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { BotwireError, codeOf, isRetryable } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Redis } from '../redis.ts';
import { describeProblems, type SchemaRegistry } from '../schemas.ts';
import { KeyedRunner } from './keyed-runner.ts';
import type { Outgoing, Producer } from './producer.ts';
import { groupOf, schemaOf, topicKeys, type Topic, type TopicKeys } from './topics.ts';

/** What a handler learns about the entry it is given. */
export interface MessageContext {
  /** Stream entry id. */
  id: string;
  topic: Topic;
  /** 1 on the first delivery, higher on retries. */
  deliveries: number;
  /** Child logger carrying topic, entry id and turn id. */
  log: Logger;
}

/**
 * Handles one message. Returns the messages to publish; they are published before the entry is
 * acknowledged. Throw a `BotwireError` with a non-retryable code to dead-letter at once.
 */
export type Handler<T> = (
  message: T,
  context: MessageContext,
) => Promise<readonly Outgoing[] | void>;

export type Outcome = 'acked' | 'retry' | 'dead';

export interface ConsumerOptions<T> {
  /** Connection for non-blocking commands; the consumer duplicates it for its blocking reads. */
  redis: Redis;
  producer: Producer;
  schemas: SchemaRegistry;
  logger: Logger;
  topic: Topic;
  /** Consumer group; defaults to the topic's component. */
  group?: string;
  /** This consumer's name within the group. */
  name: string;
  /** Key prefix, see `STREAM_PREFIX`. */
  prefix: string;
  handler: Handler<T>;
  /** Messages with the same key are handled one after another, in stream order. */
  orderingKey?: (message: T) => string | undefined;
  /** Entries per read. @defaultValue 64 */
  batchSize?: number;
  /** Handlers running at once. @defaultValue 16 */
  concurrency?: number;
  /** XREADGROUP BLOCK time (ms). @defaultValue 2000 */
  blockMs?: number;
  /** Idle time after which a pending entry is reclaimed (ms). @defaultValue 30000 */
  claimIdleMs?: number;
  /** Pause between reclaim rounds (ms). @defaultValue 5000 */
  claimIntervalMs?: number;
  /** Deliveries before an entry is dead-lettered. @defaultValue 5 */
  maxDeliveries?: number;
  /** Approximate length kept of the dead-letter stream (entries). @defaultValue 100000 */
  deadMaxLen?: number;
  /** Called after each entry, for metrics. */
  onOutcome?: (outcome: Outcome, topic: Topic) => void;
}

interface Entry {
  id: string;
  /** The `data` field, or null when the entry has none (or was trimmed away). */
  data: string | null;
}

type Decoded<T> = { ok: true; message: T } | { ok: false; error: BotwireError };

/** Seconds a recorded failure reason is kept for an entry that stays pending. */
const FAILURE_TTL_S = 7 * 24 * 3600;

function parseEntries(raw: unknown): Entry[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((item: unknown) => {
    const [id, fields] = item as [string, unknown];
    let data: string | null = null;
    if (Array.isArray(fields)) {
      for (let i = 0; i + 1 < fields.length; i += 2) {
        if (String(fields[i]) === 'data') data = String(fields[i + 1]);
      }
    }
    return { id: String(id), data };
  });
}

/**
 * The entries of a one-stream XREADGROUP reply. Under RESP2 the reply is `[[key, entries]]`; under
 * RESP3 (the ioredis 6 default) `call()` hands back the map flattened: `[key, entries]`.
 */
function entriesOfRead(reply: unknown): unknown {
  if (!Array.isArray(reply) || reply.length === 0) return [];
  const first: unknown = reply[0];
  return Array.isArray(first) ? (first as unknown[])[1] : reply[1];
}

function isNoGroupError(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOGROUP');
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A consumer-group consumer of one topic. Call `start()` once and `close()` when done. */
export class StreamConsumer<T> {
  readonly #o: Required<Omit<ConsumerOptions<T>, 'orderingKey' | 'onOutcome'>> &
    Pick<ConsumerOptions<T>, 'orderingKey' | 'onOutcome'>;
  readonly #keys: TopicKeys;
  readonly #blocking: Redis;
  readonly #runner: KeyedRunner;
  readonly #inFlight = new Set<string>();
  readonly #stop = new AbortController();
  #loops: Promise<void> | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: ConsumerOptions<T>) {
    this.#o = {
      group: groupOf(options.topic),
      batchSize: 64,
      concurrency: 16,
      blockMs: 2000,
      claimIdleMs: 30_000,
      claimIntervalMs: 5000,
      maxDeliveries: 5,
      deadMaxLen: 100_000,
      ...options,
    };
    this.#keys = topicKeys(options.prefix, options.topic);
    this.#blocking = options.redis.duplicate({ connectionName: `${options.name}:blocking` });
    this.#runner = new KeyedRunner(this.#o.concurrency);
  }

  get stream(): string {
    return this.#keys.stream;
  }

  /** Creates the group if missing, then starts reading and reclaiming in the background. */
  async start(): Promise<void> {
    if (this.#loops) throw new Error('consumer already started');
    await ensureGroup(this.#o.redis, this.#keys.stream, this.#o.group);
    this.#loops = Promise.all([this.#readLoop(), this.#claimLoop()]).then(() => undefined);
  }

  /** Stops reading, waits for in-flight handlers, closes the blocking connection. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#stop.abort();
    // Cuts a blocked XREADGROUP short; entries it may have been handed stay pending and are
    // reclaimed later, so nothing is lost.
    this.#blocking.disconnect();
    try {
      await this.#loops;
    } catch (error) {
      this.#o.logger.error({ err: error }, 'consumer loop failed while closing');
    }
  }

  get #closed(): boolean {
    return this.#stop.signal.aborted;
  }

  async #pause(ms: number): Promise<void> {
    try {
      await sleep(ms, undefined, { signal: this.#stop.signal });
    } catch {
      // aborted by close()
    }
  }

  async #readLoop(): Promise<void> {
    const { group, name, batchSize, blockMs } = this.#o;
    // '0' walks this consumer's own pending entries first; '>' then asks for new ones.
    let cursor = '0';
    let failures = 0;
    while (!this.#closed) {
      try {
        const args: (string | number)[] = ['GROUP', group, name, 'COUNT', batchSize];
        if (cursor === '>') args.push('BLOCK', blockMs);
        args.push('STREAMS', this.#keys.stream, cursor);
        const entries = parseEntries(
          entriesOfRead(await this.#blocking.call('XREADGROUP', ...args)),
        );
        failures = 0;
        if (cursor === '>') {
          await this.#handleBatch(entries, false);
        } else if (entries.length === 0) {
          cursor = '>';
        } else {
          cursor = entries[entries.length - 1]!.id;
          await this.#handleBatch(entries, true);
        }
      } catch (error) {
        if (this.#closed) break;
        if (isNoGroupError(error)) {
          // The stream or group vanished (a Redis without persistence restarted): recreate it.
          await ensureGroup(this.#o.redis, this.#keys.stream, group).catch(() => undefined);
          continue;
        }
        failures += 1;
        this.#o.logger.warn({ err: error, stream: this.#keys.stream }, 'read failed; retrying');
        await this.#pause(Math.min(100 * 2 ** failures, 5000));
      }
    }
  }

  async #claimLoop(): Promise<void> {
    while (!this.#closed) {
      await this.#pause(this.#o.claimIntervalMs);
      if (this.#closed) break;
      try {
        await this.claimIdle();
      } catch (error) {
        if (!this.#closed) this.#o.logger.warn({ err: error }, 'reclaim failed; will try again');
      }
    }
  }

  /**
   * One reclaim round: takes over every entry of the group idle past `claimIdleMs` and handles
   * it. Exposed so tests and tools can trigger a round without waiting for the timer.
   * @returns how many entries were reclaimed.
   */
  async claimIdle(): Promise<number> {
    const { redis, group, name, claimIdleMs, batchSize } = this.#o;
    let cursor = '0-0';
    let claimed = 0;
    do {
      const [next, rawEntries, deleted] = (await redis.call(
        'XAUTOCLAIM',
        this.#keys.stream,
        group,
        name,
        claimIdleMs,
        cursor,
        'COUNT',
        batchSize,
      )) as [string, unknown, string[] | undefined];
      if (deleted && deleted.length > 0) {
        // Trimmed by MAXLEN before anyone acknowledged them: nothing left to deliver.
        this.#o.logger.error(
          { stream: this.#keys.stream, ids: deleted },
          'pending entries were trimmed from the stream before being handled',
        );
        await redis.hdel(this.#keys.failures, ...deleted);
      }
      const entries = parseEntries(rawEntries);
      claimed += entries.length;
      await this.#handleBatch(entries, true);
      cursor = next;
    } while (cursor !== '0-0' && !this.#closed);
    return claimed;
  }

  /** Delivery counts of entries pending for this consumer; absent when no longer pending. */
  async #deliveries(ids: readonly string[]): Promise<Map<string, number>> {
    const pipeline = this.#o.redis.pipeline();
    for (const id of ids) {
      pipeline.call('XPENDING', this.#keys.stream, this.#o.group, id, id, 1, this.#o.name);
    }
    const results = (await pipeline.exec()) ?? [];
    const counts = new Map<string, number>();
    results.forEach(([error, reply]) => {
      if (error) throw error;
      const row = (reply as [string, string, number, number][])[0];
      if (row) counts.set(String(row[0]), Number(row[3]));
    });
    return counts;
  }

  async #handleBatch(entries: readonly Entry[], redelivered: boolean): Promise<void> {
    const fresh = entries.filter((entry) => !this.#inFlight.has(entry.id));
    if (fresh.length === 0) return;
    const counts = redelivered ? await this.#deliveries(fresh.map((e) => e.id)) : undefined;
    await Promise.all(
      fresh.map((entry) => {
        const deliveries = counts ? counts.get(entry.id) : 1;
        if (deliveries === undefined) return Promise.resolve(); // acknowledged meanwhile
        const decoded = this.#decode(entry);
        const key = decoded.ok ? this.#o.orderingKey?.(decoded.message) : undefined;
        this.#inFlight.add(entry.id);
        return this.#runner
          .run(key, () => this.#handle(entry, decoded, deliveries))
          .finally(() => this.#inFlight.delete(entry.id));
      }),
    );
  }

  #decode(entry: Entry): Decoded<T> {
    if (entry.data === null) {
      return {
        ok: false,
        error: new BotwireError('BW_ERR_MESSAGE_MALFORMED', 'entry has no field `data`'),
      };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(entry.data);
    } catch (error) {
      return {
        ok: false,
        error: new BotwireError(
          'BW_ERR_MESSAGE_MALFORMED',
          `data is not JSON: ${errorMessage(error)}`,
        ),
      };
    }
    const result = this.#o.schemas.validate<T>(schemaOf(this.#o.topic), parsed);
    if (!result.ok) {
      return {
        ok: false,
        error: new BotwireError(
          'BW_ERR_MESSAGE_INVALID',
          `message fails the ${this.#o.topic} schema: ${describeProblems(result.problems)}`,
          { details: { problems: result.problems } },
        ),
      };
    }
    return { ok: true, message: result.value };
  }

  async #handle(entry: Entry, decoded: Decoded<T>, deliveries: number): Promise<void> {
    const { redis, group, handler, producer, maxDeliveries, topic } = this.#o;
    const turnId =
      decoded.ok && typeof (decoded.message as { turn_id?: unknown }).turn_id === 'string'
        ? (decoded.message as { turn_id: string }).turn_id
        : undefined;
    const log = this.#o.logger.child({ topic, msgId: entry.id, turnId, deliveries });
    try {
      if (!decoded.ok) throw decoded.error;
      if (deliveries > maxDeliveries) {
        const last = await redis.hget(this.#keys.failures, entry.id);
        throw new BotwireError(
          'BW_ERR_MAX_DELIVERIES',
          `delivered ${deliveries - 1} times without success; last failure: ${
            last ?? 'none recorded (the consumer stopped or timed out while handling it)'
          }`,
        );
      }
      const outgoing = await handler(decoded.message, { id: entry.id, topic, deliveries, log });
      if (outgoing && outgoing.length > 0) await producer.publishMany(outgoing);
      await redis
        .multi()
        .xack(this.#keys.stream, group, entry.id)
        .hdel(this.#keys.failures, entry.id)
        .exec();
      this.#o.onOutcome?.('acked', topic);
    } catch (error) {
      const reason = `${codeOf(error)}: ${errorMessage(error)}`;
      if (!isRetryable(error) || deliveries >= maxDeliveries) {
        const final =
          isRetryable(error) && codeOf(error) !== 'BW_ERR_MAX_DELIVERIES'
            ? `failed ${deliveries} deliveries; last failure: ${reason}`
            : reason;
        await this.#deadLetter(entry, error, final, deliveries, log);
        return;
      }
      log.warn({ err: error }, 'handler failed; the entry stays pending and will be retried');
      await redis
        .multi()
        .hset(this.#keys.failures, entry.id, reason)
        .expire(this.#keys.failures, FAILURE_TTL_S)
        .exec()
        .catch((recordError: unknown) =>
          log.warn({ err: recordError }, 'could not record the failure reason'),
        );
      this.#o.onOutcome?.('retry', topic);
    }
  }

  async #deadLetter(
    entry: Entry,
    error: unknown,
    reason: string,
    deliveries: number,
    log: Logger,
  ): Promise<void> {
    const { redis, group, name, topic, deadMaxLen } = this.#o;
    try {
      await redis
        .multi()
        .xadd(
          this.#keys.dead,
          'MAXLEN',
          '~',
          deadMaxLen,
          '*',
          'data',
          entry.data ?? '',
          'source_id',
          entry.id,
          'topic',
          topic,
          'group',
          group,
          'consumer',
          name,
          'code',
          codeOf(error),
          'reason',
          reason,
          'deliveries',
          deliveries,
          'failed_at',
          new Date().toISOString(),
        )
        .xack(this.#keys.stream, group, entry.id)
        .hdel(this.#keys.failures, entry.id)
        .exec();
      log.error({ code: codeOf(error), reason }, 'message moved to the dead-letter stream');
      this.#o.onOutcome?.('dead', topic);
    } catch (deadError) {
      // Still pending: the next reclaim round tries again.
      log.error({ err: deadError, reason }, 'could not dead-letter the message; it stays pending');
    }
  }
}

/** Creates the topic's stream and consumer group when missing (reading from the start). */
export async function ensureGroup(redis: Redis, stream: string, group: string): Promise<void> {
  try {
    await redis.xgroup('CREATE', stream, group, '0', 'MKSTREAM');
  } catch (error) {
    if (!(error instanceof Error && error.message.startsWith('BUSYGROUP'))) throw error;
  }
}

/**
 * One entry's handling, once the stream consumer (`consumer.ts`) has read and admitted it.
 *
 * - Its `data` is decoded and validated against the topic's schema; a malformed or invalid
 *   message is dead-lettered at once, since no retry can fix it.
 * - The handler runs, what it returns is published, then the entry is XACKed. A retryable failure
 *   is retried in place with exponential backoff (the consumer holds back the later messages of
 *   the same key meanwhile, so order is kept); Redis counts the deliveries and keeps the last
 *   failure's reason. When the `maxDeliveries`-th delivery fails, or an unrecoverable error is
 *   thrown, the entry moves to the dead-letter stream with its reason, in one MULTI with the
 *   XACK, and the key's next message goes ahead.
 * - A failure because Redis or Postgres cannot be reached is tried again without using up a
 *   delivery.
 * - Before each try it asks whether the entry is still this process's to handle (the partition
 *   still owned under the tenure it was read in, the consumer not closing); if not, the entry is
 *   left pending for the partition's next reader.
 */
import { BotwireError, codeOf, errorMessage, isRetryable, isUnavailable } from '../errors.ts';
import { lazyChild, type Logger } from '../logger.ts';
import type { Redis } from '../redis.ts';
import { describeProblems, type SchemaRegistry } from '../schemas.ts';
import { deadLetterId } from './dead-letters.ts';
import type { Entry } from './entries.ts';
import type { Outgoing, Producer } from './producer.ts';
import { schemaOf, type Topic, type TopicKeys } from './topics.ts';

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

/** An entry's message, or why it can never be handled. */
export type Decoded<T> = { ok: true; message: T } | { ok: false; error: BotwireError };

export interface DeliveryOptions<T> {
  /** The auto-pipelined connection: acknowledgements and failure records join the handlers'. */
  redis: Redis;
  producer: Producer;
  schemas: SchemaRegistry;
  logger: Logger;
  topic: Topic;
  group: string;
  /** This consumer's name within the group. */
  name: string;
  keys: TopicKeys;
  handler: Handler<T>;
  /** First retry delay (ms), doubled per delivery, at most 30 s. */
  retryBaseMs: number;
  /** Deliveries before an entry is dead-lettered. */
  maxDeliveries: number;
  /** Approximate length kept of the dead-letter stream (entries). */
  deadMaxLen: number;
  /** Waits `ms`, or less when the consumer closes. */
  pause: (ms: number) => Promise<void>;
  onOutcome?: (outcome: Outcome, topic: Topic) => void;
  onDeadLettered?: (topic: Topic, deadId: string, code: string) => void;
}

/** Seconds a recorded failure reason is kept for an entry that stays pending. */
const FAILURE_TTL_S = 7 * 24 * 3600;

/** Longest wait between tries while Redis or Postgres is unreachable (ms): catch up soon after. */
const OUTAGE_RETRY_MAX_MS = 5000;

/** How an attempt at an entry ended. */
type Attempt = 'settled' | 'retry' | 'outage';

/** An entry read and admitted: where it was read, and whether it is still the reader's. */
export interface Admitted<T> {
  entry: Entry;
  decoded: Decoded<T>;
  partition: number;
  /** The delivery this read is: 1 for an entry read as new, else as Redis counts it. */
  deliveries: number;
  /** Read as new (`>`), not from the pending list. */
  fresh: boolean;
  /** Whether the entry is still this process's to handle (see the header). */
  mine: () => boolean;
}

/** Decodes, handles, retries and dead-letters the entries of one topic's consumer. */
export class Delivery<T> {
  readonly #o: DeliveryOptions<T>;

  constructor(options: DeliveryOptions<T>) {
    this.#o = options;
  }

  decode(entry: Entry): Decoded<T> {
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
    const { schemas, topic } = this.#o;
    const result = schemas.validate<T>(schemaOf(topic), parsed);
    if (!result.ok) {
      return {
        ok: false,
        error: new BotwireError(
          'BW_ERR_MESSAGE_INVALID',
          `message fails the ${topic} schema: ${describeProblems(result.problems)}`,
          { details: { problems: result.problems } },
        ),
      };
    }
    return { ok: true, message: result.value };
  }

  /**
   * Handles one entry, retrying in place while the failure is retryable and deliveries remain. A
   * failure because Redis or Postgres cannot be reached does not use up a delivery: the outage is
   * not the message's fault, and counting it would dead-letter every message of a longer outage.
   */
  async handle(admitted: Admitted<T>): Promise<void> {
    const { entry, decoded, partition, fresh, mine } = admitted;
    const { redis, group, name, logger, topic, retryBaseMs, pause } = this.#o;
    const stream = this.#o.keys.partitions[partition]!;
    const turnId = decoded.ok ? (decoded.message as { turn_id?: unknown }).turn_id : undefined;
    let outages = 0;
    for (let deliveries = admitted.deliveries; ; deliveries += 1) {
      const log = lazyChild(logger, {
        topic,
        msgId: entry.id,
        ...(typeof turnId === 'string' ? { turnId } : {}),
        deliveries,
      });
      if (!mine()) return;
      // Only an entry read as new, on its first delivery, can skip clearing a recorded failure
      // (an outage records none).
      const unfailed = fresh && deliveries === admitted.deliveries;
      let outcome = await this.#attempt(entry, decoded, deliveries, partition, log, unfailed);
      while (outcome === 'outage') {
        outages += 1;
        await pause(Math.min(retryBaseMs * 2 ** (outages - 1), OUTAGE_RETRY_MAX_MS));
        if (!mine()) return;
        outcome = await this.#attempt(entry, decoded, deliveries, partition, log, unfailed);
      }
      if (outcome === 'settled') return;
      outages = 0;
      await pause(Math.min(retryBaseMs * 2 ** (deliveries - 1), 30_000));
      if (!mine()) return;
      // Record the redelivery in Redis (RETRYCOUNT sets the counter; JUSTID alone would not),
      // so a new reader after a crash knows how often it failed. If Redis cannot be reached the
      // attempt goes ahead anyway; the counter then lags by one.
      await redis
        .call('XCLAIM', stream, group, name, 0, entry.id, 'RETRYCOUNT', deliveries + 1, 'JUSTID')
        .catch((error: unknown) => log.warn({ err: error }, 'could not record the redelivery'));
    }
  }

  /**
   * @returns `settled` when the entry is acknowledged or dead-lettered, `outage` when Redis or
   *   Postgres could not be reached (try the same delivery again), `retry` for another delivery.
   */
  async #attempt(
    entry: Entry,
    decoded: Decoded<T>,
    deliveries: number,
    partition: number,
    log: Logger,
    unfailed: boolean,
  ): Promise<Attempt> {
    const { redis, group, handler, producer, maxDeliveries, topic, keys } = this.#o;
    const stream = keys.partitions[partition]!;
    try {
      if (!decoded.ok) throw decoded.error;
      if (deliveries > maxDeliveries) {
        const last = await redis.hget(keys.failures(partition), entry.id);
        throw new BotwireError(
          'BW_ERR_MAX_DELIVERIES',
          `delivered ${deliveries - 1} times without success; last failure: ${
            last ?? 'none recorded (the process stopped while handling it)'
          }`,
        );
      }
      const outgoing = await handler(decoded.message, { id: entry.id, topic, deliveries, log });
      if (outgoing && outgoing.length > 0) await producer.publishMany(outgoing);
      if (unfailed) {
        // Read as new (`>`) and not failed yet: no failure can be recorded for it, so one XACK
        // (not MULTI, XACK, HDEL, EXEC). It is sent only after the publish above resolved.
        await redis.xack(stream, group, entry.id);
      } else {
        await redis
          .multi()
          .xack(stream, group, entry.id)
          .hdel(keys.failures(partition), entry.id)
          .exec();
      }
      this.#o.onOutcome?.('acked', topic);
      return 'settled';
    } catch (error) {
      const reason = `${codeOf(error)}: ${errorMessage(error)}`;
      if (decoded.ok && isUnavailable(error)) {
        log.warn({ err: error }, 'a backing service is unreachable; trying again (not counted)');
        this.#o.onOutcome?.('retry', topic);
        return 'outage';
      }
      if (!isRetryable(error) || deliveries >= maxDeliveries) {
        const final =
          isRetryable(error) && codeOf(error) !== 'BW_ERR_MAX_DELIVERIES'
            ? `failed ${deliveries} deliveries; last failure: ${reason}`
            : reason;
        return (await this.#deadLetter(entry, error, final, deliveries, partition, log))
          ? 'settled'
          : 'retry';
      }
      log.warn({ err: error }, 'handler failed; retrying after a backoff');
      await redis
        .multi()
        .hset(keys.failures(partition), entry.id, reason)
        .expire(keys.failures(partition), FAILURE_TTL_S)
        .exec()
        .catch((recordError: unknown) =>
          log.warn({ err: recordError }, 'could not record the failure reason'),
        );
      this.#o.onOutcome?.('retry', topic);
      return 'retry';
    }
  }

  async #deadLetter(
    entry: Entry,
    error: unknown,
    reason: string,
    deliveries: number,
    partition: number,
    log: Logger,
  ): Promise<boolean> {
    const { redis, group, name, topic, deadMaxLen, keys } = this.#o;
    const stream = keys.partitions[partition]!;
    try {
      const results = await redis
        .multi()
        .xadd(
          keys.dead(partition),
          'MAXLEN',
          '~',
          deadMaxLen,
          '*',
          'data',
          entry.data ?? '',
          'source_id',
          entry.id,
          'stream',
          stream,
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
        .xack(stream, group, entry.id)
        .hdel(keys.failures(partition), entry.id)
        .exec();
      log.error({ code: codeOf(error), reason }, 'message moved to the dead-letter stream');
      this.#o.onOutcome?.('dead', topic);
      const deadId = results?.[0]?.[1];
      if (typeof deadId === 'string') {
        this.#o.onDeadLettered?.(topic, deadLetterId(partition, deadId), codeOf(error));
      }
      return true;
    } catch (deadError) {
      log.error({ err: deadError, reason }, 'could not dead-letter the message; retrying');
      return false;
    }
  }
}

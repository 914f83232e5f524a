/**
 * Publishes live events to the one capped events stream, best effort: `publish` returns at once,
 * never throws and never waits for Redis, so the work that caused an event is neither failed nor
 * delayed by it. A failed or dropped event is counted (`failures`, `onFailed`) and logged at most
 * once a minute.
 */
import type { Logger } from '../logger.ts';
import type { Redis } from '../redis.ts';
import { describeProblems, type SchemaRegistry } from '../schemas.ts';
import { EVENT_FIELDS, eventsKey, type EventPayloads, type EventType } from './types.ts';

export interface EventPublisherOptions {
  /** The component's auto-pipelined connection: an event joins the writes already going out. */
  redis: Redis;
  schemas: SchemaRegistry;
  logger: Logger;
  /** Key prefix, see `STREAM_PREFIX`. */
  prefix: string;
  /** Approximate length the stream is trimmed to on XADD (entries), see `EVENTS_MAX_LEN`. */
  maxLen: number;
  /** Called once per event lost (invalid, Redis not connected, or the XADD failed), for metrics. */
  onFailed?: (type: EventType) => void;
}

/** Shortest gap between two log lines about lost events (ms). */
const LOG_EVERY_MS = 60_000;

export class EventPublisher {
  readonly #o: EventPublisherOptions;
  readonly #key: string;
  #failures = 0;
  #loggedAt = 0;
  #unlogged = 0;

  constructor(options: EventPublisherOptions) {
    this.#o = options;
    this.#key = eventsKey(options.prefix);
  }

  /** Events lost since the start. */
  get failures(): number {
    return this.#failures;
  }

  /** Publishes one event; returns at once whatever happens to it. */
  publish<K extends EventType>(type: K, payload: EventPayloads[K]): void {
    const { redis, schemas, maxLen } = this.#o;
    const checked = schemas.validate(`events/${type}`, payload);
    if (!checked.ok) {
      this.#failed(type, `fails its schema: ${describeProblems(checked.problems)}`);
      return;
    }
    // While Redis is away, a worker's connection would queue the command until it is back: the
    // event is dropped instead, so an outage cannot pile events up in memory.
    if (redis.status !== 'ready') {
      this.#failed(type, 'Redis is not connected');
      return;
    }
    const appId = 'app_id' in payload ? payload.app_id : undefined;
    const fields: string[] = [EVENT_FIELDS.type, type];
    if (appId) fields.push(EVENT_FIELDS.appId, appId);
    fields.push(EVENT_FIELDS.data, JSON.stringify(payload));
    redis
      .xadd(this.#key, 'MAXLEN', '~', maxLen, '*', ...fields)
      .catch((error: unknown) => this.#failed(type, (error as Error).message));
  }

  #failed(type: EventType, reason: string): void {
    this.#failures += 1;
    this.#o.onFailed?.(type);
    const now = Date.now();
    if (now - this.#loggedAt < LOG_EVERY_MS) {
      this.#unlogged += 1;
      return;
    }
    this.#o.logger.warn(
      { type, reason, lostSinceLastLine: this.#unlogged, lostInAll: this.#failures },
      'a live event was lost (events are best effort; the work itself went on)',
    );
    this.#loggedAt = now;
    this.#unlogged = 0;
  }
}

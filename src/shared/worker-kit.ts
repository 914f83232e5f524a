/**
 * What every stream-consuming component wires the same way: Redis, the schemas, a producer, and
 * one consumer of its topic; and the order things close in. A component's `worker.ts` adds its own
 * dependencies and handler.
 */
import type { Config } from '../config.ts';
import { BotDirectory, type DirectoryOptions } from './bots/directory.ts';
import { BotStore } from './bots/store.ts';
import { createDb, type DbOptions, type Knex } from './db.ts';
import { StreamConsumer } from './bus/consumer.ts';
import type { Handler } from './bus/delivery.ts';
import { checkLegacyLayout } from './bus/legacy-layout.ts';
import { EventPublisher, type EventPublisherOptions } from './events/publisher.ts';
import { Producer, PRODUCER_SCRIPTS, type ProducerOptions } from './bus/producer.ts';
import type { Topic } from './bus/topics.ts';
import { checkWithin, HealthFile } from './health-file.ts';
import type { Logger } from './logger.ts';
import type { Service } from './process.ts';
import { createRedis, refuseClusterAsOneServer, type Redis, type RedisOptions } from './redis.ts';
import { SchemaRegistry } from './schemas.ts';

export interface Kit {
  /** The process's name in Redis (CLIENT LIST) and Postgres (`pg_stat_activity`). */
  name: string;
  config: Config;
  logger: Logger;
  redis: Redis;
  schemas: SchemaRegistry;
  producer: Producer;
  /** Live events for the console (best effort, docs/events.md). */
  events: EventPublisher;
}

export interface KitOptions {
  /** Connection name shown by Redis' CLIENT LIST and Postgres' `pg_stat_activity`. */
  name: string;
  /** Commands fail at once while Redis is down (request paths answer 503). @defaultValue false */
  failFast?: boolean;
  /**
   * Coalesce the commands of concurrent handlers into one socket write (a socket write costs far
   * more CPU than a Redis command; see docs/pipeline.md). Blocking reads and subscriptions run
   * on connections of their own that never auto-pipeline. @defaultValue true
   */
  enableAutoPipelining?: boolean;
  /** Called once per published message, for metrics. */
  onPublished?: ProducerOptions['onPublished'];
  /** Called once per live event lost, for metrics. */
  onEventLost?: EventPublisherOptions['onFailed'];
  /**
   * The component's own Lua scripts, defined with the connection like the producer's. A script
   * goes by its SHA1 (`EVALSHA`) and must be defined as the connection is made, not later: an
   * auto-pipelining connection gives each pipeline the scripts defined when the pipeline was
   * made, so a script defined while one is filling fails in it ("pipeline[functionName] is not a
   * function") and ioredis then throws out of its callback, which stops the process.
   */
  scripts?: RedisOptions['scripts'];
}

export function createKit(config: Config, logger: Logger, options: KitOptions): Kit {
  const {
    name,
    failFast = false,
    enableAutoPipelining = true,
    onPublished,
    onEventLost,
    scripts,
  } = options;
  const redis = createRedis(config.redisUrl, {
    name,
    tlsCaFile: config.redisTlsCa,
    failFast,
    enableAutoPipelining,
    scripts: { ...PRODUCER_SCRIPTS, ...scripts },
  });
  redis.on('error', (error: Error) =>
    logger.warn({ err: error.message }, 'redis connection error'),
  );
  const schemas = new SchemaRegistry();
  const producer = new Producer({
    redis,
    schemas,
    prefix: config.stream.prefix,
    maxLen: config.stream.maxLen,
    partitions: config.stream.partitions,
    ...(onPublished ? { onPublished } : {}),
  });
  const events = new EventPublisher({
    redis,
    schemas,
    logger,
    prefix: config.stream.prefix,
    maxLen: config.events.maxLen,
    ...(onEventLost ? { onFailed: onEventLost } : {}),
  });
  return { name, config, logger, redis, schemas, producer, events };
}

/**
 * The checks of Redis every component makes before it takes work: not a cluster named as one
 * server (`refuseClusterAsOneServer`: `BW_ERR_CONFIG`; its partitions lie in different slots),
 * and no work left in the former stream key layout, which this code would not see
 * (`checkLegacyLayout`: `BW_ERR_LAYOUT`).
 */
export async function checkRedisAtStart(redis: Redis, config: Config): Promise<void> {
  await refuseClusterAsOneServer(redis);
  await checkLegacyLayout(redis, config.stream.prefix, config.stream.partitions);
}

/**
 * Starts the consumer of `topic` with `handler`, after `checkRedisAtStart`. Closing stops the consumer
 * first (in-flight messages finish), then runs `closers` in order, then closes Redis; each step
 * on its own.
 */
export async function consume<T>(
  kit: Kit,
  topic: Topic,
  handler: Handler<T>,
  closers: (() => Promise<unknown>)[] = [],
): Promise<Service> {
  const { config, logger, redis, schemas, producer, events } = kit;
  await checkRedisAtStart(redis, config);
  const consumer = new StreamConsumer<T>({
    redis,
    producer,
    schemas,
    logger,
    topic,
    name: config.consumer.name,
    prefix: config.stream.prefix,
    partitions: config.stream.partitions,
    handler,
    batchSize: config.consumer.batchSize,
    concurrency: config.consumer.concurrency,
    ...(config.consumer.botConcurrency > 0
      ? { perBotConcurrency: config.consumer.botConcurrency }
      : {}),
    blockMs: config.consumer.blockMs,
    lingerMs: config.consumer.lingerMs,
    leaseMs: config.consumer.leaseMs,
    leaseReplicas: config.consumer.leaseReplicas,
    retryBaseMs: config.consumer.retryBaseMs,
    maxDeliveries: config.consumer.maxDeliveries,
    onDeadLettered: (topic, id, code) => events.publish('dead-letter', { topic, id, code }),
  });
  await consumer.start();
  logger.info({ topic, partitions: consumer.partitions }, 'consuming');
  const health = healthFileOf(kit, topic);
  health?.start();
  let closing: Promise<void> | undefined;
  return {
    close: () => {
      closing ??= (async () => {
        for (const [what, step] of [
          ['health file', async () => health?.stopping()],
          ['consumer', () => consumer.close()],
          ...closers.map((c, i) => [`dependency ${i + 1}`, c] as const),
          ['redis', () => redis.quit()],
          ['health file', async () => health?.stop()],
        ] as const) {
          try {
            await step();
          } catch (error) {
            logger.warn({ err: error }, `close: ${what} failed`);
          }
        }
      })();
      return closing;
    },
  };
}

/**
 * The worker's health file (HEALTH_FILE; none when empty): rewritten every HEALTH_INTERVAL_MS
 * while the process turns, ready while its Redis connection answers a PING within the interval.
 */
function healthFileOf(kit: Kit, component: string): HealthFile | undefined {
  const { config, logger, redis } = kit;
  if (!config.health.file) return undefined;
  const timeoutMs = Math.min(2000, config.health.intervalMs);
  return new HealthFile({
    path: config.health.file,
    intervalMs: config.health.intervalMs,
    component,
    pid: process.pid,
    logger,
    probe: async () => ({ redis: await checkWithin(() => redis.ping(), timeoutMs) }),
  });
}

/**
 * A Postgres pool as the settings say: its size, the server-side statement and idle-transaction
 * limits and the connect timeout; its sessions are labelled with the kit's name. `overrides`
 * replace settings for a component whose statements are of another kind (the indexer's bulk work).
 */
export function openDb(
  kit: Pick<Kit, 'config' | 'name' | 'logger'>,
  overrides: DbOptions = {},
): Knex {
  const { config } = kit;
  const timeouts = config.databaseTimeouts;
  return createDb(config.databaseUrl, {
    poolMax: config.databasePoolMax,
    applicationName: kit.name,
    statementTimeoutMs: timeouts.statementMs,
    idleInTransactionTimeoutMs: timeouts.idleInTransactionMs,
    connectTimeoutMs: timeouts.connectMs,
    logger: kit.logger,
    ...overrides,
  });
}

/**
 * Postgres and a started bot directory, for components that look bots and channels up. Stored
 * credentials open with `credentialsKey` or a key of the kit's `CREDENTIALS_KEY_PREVIOUS`.
 * @throws BotwireError `BW_ERR_CREDENTIALS_KEY` when channels are stored and none opens.
 */
export async function openDirectory(
  kit: Kit,
  credentialsKey: Buffer,
  options: Pick<DirectoryOptions, 'missTtlMs' | 'maxMisses' | 'trustCurrentView'> = {},
): Promise<{ db: Knex; store: BotStore; directory: BotDirectory }> {
  const { config, logger, redis } = kit;
  const db = openDb(kit);
  const store = new BotStore({
    db,
    credentialsKey,
    previousCredentialsKeys: config.previousCredentialsKeys,
  });
  const directory = new BotDirectory({
    store,
    redis,
    prefix: config.stream.prefix,
    logger,
    ...options,
  });
  try {
    await directory.start();
  } catch (error) {
    await directory.close().catch(() => undefined);
    await db.destroy().catch(() => undefined);
    throw error;
  }
  return { db, store, directory };
}

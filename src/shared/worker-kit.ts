/**
 * What every stream-consuming component wires the same way: Redis, the schemas, a producer, and
 * one consumer of its topic; and the order things close in. A component's `worker.ts` adds its own
 * dependencies and handler.
 */
import type { Config } from '../config.ts';
import { StreamConsumer, type Handler } from './bus/consumer.ts';
import { Producer } from './bus/producer.ts';
import type { Topic } from './bus/topics.ts';
import type { Logger } from './logger.ts';
import type { Service } from './process.ts';
import { createRedis, type Redis } from './redis.ts';
import { SchemaRegistry } from './schemas.ts';

export interface Kit {
  config: Config;
  logger: Logger;
  redis: Redis;
  schemas: SchemaRegistry;
  producer: Producer;
}

export function createKit(config: Config, logger: Logger, name: string): Kit {
  const redis = createRedis(config.redisUrl, { name });
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
  });
  return { config, logger, redis, schemas, producer };
}

/**
 * Starts the consumer of `topic` with `handler`. Closing stops the consumer first (in-flight
 * messages finish), then runs `closers` in order, then closes Redis; each step on its own.
 */
export async function consume<T>(
  kit: Kit,
  topic: Topic,
  handler: Handler<T>,
  closers: (() => Promise<unknown>)[] = [],
): Promise<Service> {
  const { config, logger, redis, schemas, producer } = kit;
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
    blockMs: config.consumer.blockMs,
    leaseMs: config.consumer.leaseMs,
    retryBaseMs: config.consumer.retryBaseMs,
    maxDeliveries: config.consumer.maxDeliveries,
  });
  await consumer.start();
  logger.info({ topic, partitions: consumer.partitions }, 'consuming');
  let closing: Promise<void> | undefined;
  return {
    close: () => {
      closing ??= (async () => {
        for (const [what, step] of [
          ['consumer', () => consumer.close()],
          ...closers.map((c, i) => [`dependency ${i + 1}`, c] as const),
          ['redis', () => redis.quit()],
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

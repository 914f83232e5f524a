import { StreamConsumer, type ConsumerOptions } from '../../src/shared/bus/consumer.ts';
import { Producer } from '../../src/shared/bus/producer.ts';
import {
  groupOf,
  partitionOf,
  topicKeys,
  type Topic,
  type TopicKeys,
} from '../../src/shared/bus/topics.ts';
import { createLogger, type Logger } from '../../src/shared/logger.ts';
import type { Redis } from '../../src/shared/redis.ts';
import { SchemaRegistry } from '../../src/shared/schemas.ts';
import { connectRedis, dropPrefix, uniquePrefix } from './services.ts';

/**
 * The first ordering key `<stem>-<n>` that lands in `partition` of `partitions` (hashed as the
 * producer hashes it).
 */
export function keyInPartition(partition: number, partitions: number, stem = 'conv'): string {
  for (let n = 0; ; n += 1) {
    const key = `${stem}-${n}`;
    if (partitionOf(key, partitions) === partition) return key;
  }
}

/** What a consumer of a {@link BusFixture} must be given; the rest has test defaults. */
export type ConsumerOverrides<M> = Partial<ConsumerOptions<M>> &
  Pick<ConsumerOptions<M>, 'handler'>;

/** One topic on the test Redis under a prefix of its own, with the consumers started on it. */
export interface BusFixture<M> {
  redis: Redis;
  prefix: string;
  schemas: SchemaRegistry;
  logger: Logger;
  producer: Producer;
  keys: TopicKeys;
  /** A consumer of the topic (name `c1`, short block, lease and retry times), not yet started; `close()` closes it. */
  consumer(overrides: ConsumerOverrides<M>): StreamConsumer<M>;
  /** Entries pending in the topic's group, over every partition. */
  pending(): Promise<number>;
  /** Closes the consumers, deletes every key under the prefix and disconnects. */
  close(): Promise<void>;
}

/**
 * Connects to the test Redis with a fresh stream prefix for `topic` split in `partitions`;
 * `defaults` are added to every consumer's options (before the consumer's own overrides).
 */
export function busFixture<M>(options: {
  topic: Topic;
  partitions: number;
  defaults?: Partial<ConsumerOptions<M>>;
  /** Redis to use (a single server or a cluster); the test Redis by default. */
  redisUrl?: string;
}): BusFixture<M> {
  const { topic, partitions } = options;
  const redis = connectRedis(options.redisUrl);
  const prefix = uniquePrefix();
  const schemas = new SchemaRegistry();
  const logger = createLogger({ component: 'test', level: 'silent' });
  const producer = new Producer({ redis, schemas, prefix, maxLen: 10_000, partitions });
  const keys = topicKeys(prefix, topic, partitions);
  const consumers: StreamConsumer<M>[] = [];
  return {
    redis,
    prefix,
    schemas,
    logger,
    producer,
    keys,
    consumer(overrides) {
      const c = new StreamConsumer<M>({
        redis,
        producer,
        schemas,
        logger,
        topic,
        name: 'c1',
        prefix,
        partitions,
        blockMs: 50,
        leaseMs: 300,
        retryBaseMs: 20,
        maxDeliveries: 3,
        ...options.defaults,
        ...overrides,
      });
      consumers.push(c);
      return c;
    },
    async pending() {
      let total = 0;
      for (const stream of keys.partitions) {
        total += Number(((await redis.xpending(stream, groupOf(topic))) as [number])[0]);
      }
      return total;
    },
    async close() {
      await Promise.all(consumers.splice(0).map((c) => c.close()));
      await dropPrefix(redis, prefix);
      redis.disconnect();
    },
  };
}

/**
 * The topic tools behind create-topic.sh, send-message.sh, read-message.sh and dead-letters.sh.
 * Settings (REDIS_URL, STREAM_PREFIX, STREAM_MAXLEN) come from the environment and env file.
 *
 *   topic-cli.ts create <topic>
 *   topic-cli.ts send <topic> '<json>'
 *   topic-cli.ts read <topic> [--from-start]
 *   topic-cli.ts dead list <topic> [--count N]
 *   topic-cli.ts dead replay <topic> (<dead-id> ... | --all)
 *
 * Exit codes: 0 done, 2 bad usage or refused input, 3 Redis unreachable.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { ensureGroups } from '../../src/shared/bus/group-commands.ts';
import { entriesByStream, parseEntries } from '../../src/shared/bus/entries.ts';
import { compareIds } from '../../src/shared/stream-ids.ts';
import {
  listDeadLetters,
  replayAllDeadLetters,
  replayDeadLetters,
  type ReplayTarget,
} from '../../src/shared/bus/dead-letters.ts';
import { Producer } from '../../src/shared/bus/producer.ts';
import { groupOf, isTopic, topicKeys, TOPICS, type Topic } from '../../src/shared/bus/topics.ts';
import { BotwireError } from '../../src/shared/errors.ts';
import { parseJsonStrict } from '../../src/shared/json.ts';
import { maskUrl } from '../../src/shared/logger.ts';
import { createRedis, isCluster, type Redis } from '../../src/shared/redis.ts';
import { SchemaRegistry } from '../../src/shared/schemas.ts';

class UsageError extends Error {}

/** How often read-message.sh asks a cluster's partitions again when none had anything. */
const CLUSTER_POLL_MS = 200;

const USAGE = `usage:
  create-topic.sh <topic>
  send-message.sh <topic> '<json>'
  read-message.sh <topic> [--from-start]
  dead-letters.sh list <topic> [--count N]
  dead-letters.sh replay <topic> (<dead-letter-id> ... | --all)
topics: ${TOPICS.join(', ')}`;

function topicArg(name: string | undefined): Topic {
  if (!name) throw new UsageError('a topic is required');
  if (!isTopic(name)) {
    throw new BotwireError(
      'BW_ERR_UNKNOWN_TOPIC',
      `unknown topic "${name.slice(0, 64)}"; topics: ${TOPICS.join(', ')}`,
    );
  }
  return name;
}

const config = (() => {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`error: BW_ERR_CONFIG: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
})();

async function connect(): Promise<Redis> {
  const redis = createRedis(config.redisUrl, {
    tlsCaFile: config.redisTlsCa,
    name: 'botwire-cli',
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    return redis;
  } catch (error) {
    console.error(
      `error: BW_ERR_UNAVAILABLE: cannot reach Redis at ${maskUrl(config.redisUrl)}: ${(error as Error).message}`,
    );
    process.exit(3);
  }
}

function producerFor(redis: Redis): Producer {
  return new Producer({
    redis,
    schemas: new SchemaRegistry(),
    prefix: config.stream.prefix,
    maxLen: config.stream.maxLen,
    partitions: config.stream.partitions,
  });
}

function partitionsOf(topic: Topic): readonly string[] {
  return topicKeys(config.stream.prefix, topic, config.stream.partitions).partitions;
}

async function create(topic: Topic): Promise<void> {
  const redis = await connect();
  const streams = partitionsOf(topic);
  await ensureGroups(redis, streams, groupOf(topic));
  console.error(
    `topic ${topic}: ${streams.length} partition streams (${streams[0]} ...) with consumer group ${groupOf(topic)}`,
  );
  redis.disconnect();
}

async function send(topic: Topic, json: string | undefined): Promise<void> {
  if (json === undefined) throw new UsageError('a JSON message is required');
  // The edge's parser: nesting bounded, prototype keys refused (see src/shared/json.ts).
  const parsed = parseJsonStrict(json);
  if (!parsed.ok) {
    throw parsed.kind === 'key'
      ? new BotwireError('BW_ERR_MESSAGE_INVALID', `${parsed.path ?? '/'}: ${parsed.message}`)
      : new BotwireError(
          'BW_ERR_MESSAGE_MALFORMED',
          `the message is not valid JSON: ${parsed.message}`,
        );
  }
  const message = parsed.value;
  const redis = await connect();
  try {
    const id = await producerFor(redis).publish(topic, message);
    console.log(id);
  } finally {
    redis.disconnect();
  }
}

/**
 * What the partitions hold after their cursors, by stream. On one server, one XREAD over them
 * all, blocking up to a second. On a cluster one XREAD names one slot, and each partition has a
 * slot of its own: one XREAD per partition without blocking, then a pause when none had anything.
 */
async function readOnce(
  redis: Redis,
  streams: readonly string[],
  cursors: ReadonlyMap<string, string>,
): Promise<[string, unknown][]> {
  if (!isCluster(redis)) {
    const reply = await redis.call(
      'XREAD',
      'COUNT',
      100,
      'BLOCK',
      1000,
      'STREAMS',
      ...streams,
      ...streams.map((k) => cursors.get(k)!),
    );
    return [...entriesByStream(reply)];
  }
  const replies = await Promise.all(
    streams.map((k) => redis.call('XREAD', 'COUNT', 100, 'STREAMS', k, cursors.get(k)!)),
  );
  const found = replies.flatMap((reply) => [...entriesByStream(reply)]);
  if (found.length === 0) await sleep(CLUSTER_POLL_MS);
  return found;
}

async function read(topic: Topic, fromStart: boolean): Promise<void> {
  const redis = await connect();
  const streams = partitionsOf(topic);
  // Pin '$' to concrete ids before announcing readiness, so nothing sent after the announcement
  // can slip between it and the first XREAD.
  const cursors = new Map<string, string>();
  for (const stream of streams) {
    const [last] = fromStart ? [] : await redis.xrevrange(stream, '+', '-', 'COUNT', 1);
    cursors.set(stream, last?.[0] ?? '0-0');
  }
  console.error(`reading topic ${topic} (${streams.length} partitions; Ctrl-C to stop)`);
  let stopping = false;
  const stop = (): void => {
    stopping = true;
    redis.disconnect();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  while (!stopping) {
    let found: [string, unknown][];
    try {
      found = await readOnce(redis, streams, cursors);
    } catch (error) {
      if (stopping) break;
      throw error;
    }
    // Partitions are separate streams: within one read, print in entry-id (arrival) order.
    const batch = found.flatMap(([stream, raw]) =>
      parseEntries(raw).map((entry) => ({ stream, ...entry })),
    );
    batch.sort((a, b) => compareIds(a.id, b.id));
    for (const { stream, id, data } of batch) {
      if (compareIds(id, cursors.get(stream)!) > 0) cursors.set(stream, id);
      process.stdout.write(`${data ?? JSON.stringify({ id, data: null })}\n`);
    }
  }
}

async function dead(action: string | undefined, args: string[]): Promise<void> {
  const topic = topicArg(args[0]);
  const redis = await connect();
  try {
    if (action === 'list') {
      const countAt = args.indexOf('--count');
      const count = countAt >= 0 ? Number(args[countAt + 1]) : 100;
      if (!Number.isInteger(count) || count < 1)
        throw new UsageError('--count takes a positive integer');
      for (const letter of await listDeadLetters(
        redis,
        config.stream.prefix,
        topic,
        config.stream.partitions,
        { count },
      )) {
        console.log(JSON.stringify(letter));
      }
    } else if (action === 'replay') {
      const target: ReplayTarget = {
        redis,
        producer: producerFor(redis),
        prefix: config.stream.prefix,
        topic,
        partitions: config.stream.partitions,
        maxLen: config.stream.maxLen,
      };
      const ids = args.slice(1).filter((a) => a !== '--all');
      if (!args.includes('--all') && ids.length === 0)
        throw new UsageError('name the dead letters to replay, or --all');
      const result = args.includes('--all')
        ? await replayAllDeadLetters(target)
        : await replayDeadLetters(target, ids);
      for (const r of result.replayed)
        console.log(JSON.stringify({ replayed: r.deadId, id: r.newId }));
      for (const r of result.refused) console.error(`refused ${r.deadId}: ${r.code}: ${r.reason}`);
      if (result.refused.length > 0) process.exitCode = 2;
    } else {
      throw new UsageError(`unknown action "${action ?? ''}"`);
    }
  } finally {
    redis.disconnect();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'create':
      return create(topicArg(rest[0]));
    case 'send':
      return send(topicArg(rest[0]), rest[1]);
    case 'read':
      return read(topicArg(rest[0]), rest.includes('--from-start'));
    case 'dead':
      return dead(rest[0], rest.slice(1));
    default:
      throw new UsageError(`unknown command "${command ?? ''}"`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`error: ${error.message}\n${USAGE}`);
    process.exit(2);
  }
  if (error instanceof BotwireError) {
    console.error(`error: ${error.code}: ${error.message}`);
    process.exit(error.code === 'BW_ERR_UNAVAILABLE' ? 3 : 2);
  }
  console.error(error);
  process.exit(1);
});

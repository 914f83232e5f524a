/**
 * The migration from the former stream key layout (one hash tag per topic:
 * `<prefix>:{<topic>}:p<n>`, `LEGACY_LAYOUT` in src/shared/bus/topics.ts) to keys tagged per
 * partition, on a running Redis (one server or a cluster): behind
 * ./scripts/migrate-stream-layout.sh. The procedure is in docs/operations.md, "Stream key layout".
 * A topic's former keys share one hash tag (one slot of a cluster), its new keys one per
 * partition: a step that reads the former keys of one topic may batch them, one that writes the
 * new keys sends one command per key.
 *
 *   stream-layout.ts status           what is left of the former layout, topic by topic
 *   stream-layout.ts drain [--timeout S]  waits until the old workers have handled every entry
 *   stream-layout.ts switch           copies dedupe markers and dead letters, deletes the rest
 *
 * Exit codes: 0 done, 1 not drained (drain timed out, or switch refused), 2 bad usage or a bad
 * setting, 3 Redis unreachable.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, loadConfig } from '../../src/config.ts';
import {
  readLegacyState,
  undrained,
  type LegacyState,
  type LegacyStreams,
} from '../../src/shared/bus/legacy-layout.ts';
import {
  LEGACY_LAYOUT,
  orderingKeyOf,
  partitionOf,
  topicKeys,
  TOPICS,
  type Topic,
} from '../../src/shared/bus/topics.ts';
import { maskUrl } from '../../src/shared/logger.ts';
import { createRedis, isCluster, scanEveryMaster, type Redis } from '../../src/shared/redis.ts';

/** Where the migration works and how it reports. */
export interface LayoutTarget {
  redis: Redis;
  prefix: string;
  /** TOPIC_PARTITIONS: the new layout's partitions (and the former one's, unless changed). */
  partitions: number;
  /** A progress line (stderr in the script). */
  say?: (line: string) => void;
}

/** The former layout's keys of one topic, as found by SCAN. */
export interface LegacyKeys {
  /** Partition numbers of the legacy partition streams. */
  streams: number[];
  leases: string[];
  failures: string[];
  dead: string[];
  markers: number;
}

/** A SCAN MATCH pattern that matches `text` literally, then `tail`. */
function literal(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/** The legacy base of a topic's keys: `<prefix>:{<topic>}:`. */
function legacyBase(prefix: string, topic: Topic): string {
  return LEGACY_LAYOUT.dead(prefix, topic).slice(0, -'dead'.length);
}

/** Every key of the former layout under `prefix` (the per-topic member set stays: it is current). */
export async function findLegacyKeys(
  redis: Redis,
  prefix: string,
): Promise<Map<Topic, LegacyKeys>> {
  const found = new Map<Topic, LegacyKeys>();
  for (const topic of TOPICS) {
    const base = legacyBase(prefix, topic);
    const keys: LegacyKeys = { streams: [], leases: [], failures: [], dead: [], markers: 0 };
    await scanEveryMaster(redis, `${literal(base)}*`, (batch) => {
      for (const key of batch) {
        const rest = key.slice(base.length);
        const stream = /^p(\d+)$/.exec(rest);
        if (stream) keys.streams.push(Number(stream[1]));
        else if (/^lease:p\d+$/.test(rest)) keys.leases.push(key);
        else if (rest === 'failures') keys.failures.push(key);
        else if (rest === 'dead') keys.dead.push(key);
        else if (rest.startsWith('seen:')) keys.markers += 1;
      }
    });
    keys.streams.sort((a, b) => a - b);
    found.set(topic, keys);
  }
  return found;
}

/** The legacy partition streams to watch: those found, and 0..partitions-1 in case one appears. */
function streamsToWatch(found: Map<Topic, LegacyKeys>, partitions: number): LegacyStreams {
  return new Map(
    TOPICS.map((topic) => {
      const numbers = new Set(Array.from({ length: partitions }, (_, p) => p));
      for (const p of found.get(topic)?.streams ?? []) numbers.add(p);
      return [topic, [...numbers].sort((a, b) => a - b)];
    }),
  );
}

function summary(state: LegacyState): string {
  const left = undrained(state);
  if (left.length === 0) return 'nothing unread or pending';
  return [...new Set(left.map((p) => p.topic))]
    .map((topic) => {
      const of = left.filter((p) => p.topic === topic);
      const lag = of.reduce((n, p) => n + p.lag, 0);
      const pending = of.reduce((n, p) => n + p.pending, 0);
      return `${topic} ${lag} unread, ${pending} pending`;
    })
    .join('; ');
}

/** What two reads agree on when nothing moved between them. */
function signature(state: LegacyState): string {
  return state.partitions
    .map((p) => `${p.stream}=${p.length}/${p.lastDelivered}/${p.lag}/${p.pending}`)
    .join(',');
}

export interface TopicStatus {
  topic: Topic;
  legacyStreams: number;
  lag: number;
  pending: number;
  deadLetters: number;
  markers: number;
  /** Partition streams of the new layout that exist. */
  newStreams: number;
}

/** Per topic: the former layout's work left, dead letters and markers; the new layout's streams. */
export async function status(target: LayoutTarget): Promise<TopicStatus[]> {
  const { redis, prefix, partitions } = target;
  const found = await findLegacyKeys(redis, prefix);
  const state = await readLegacyState(redis, prefix, streamsToWatch(found, partitions));
  const exists = await Promise.all(
    TOPICS.flatMap((topic) =>
      topicKeys(prefix, topic, partitions).partitions.map((stream) => redis.exists(stream)),
    ),
  );
  return TOPICS.map((topic, t) => {
    const of = state.partitions.filter((p) => p.topic === topic);
    return {
      topic,
      legacyStreams: found.get(topic)!.streams.length,
      lag: of.reduce((n, p) => n + p.lag, 0),
      pending: of.reduce((n, p) => n + p.pending, 0),
      deadLetters: state.dead.get(topic) ?? 0,
      markers: found.get(topic)!.markers,
      newStreams: exists.slice(t * partitions, (t + 1) * partitions).reduce((a, b) => a + b, 0),
    };
  });
}

/**
 * Waits until every legacy partition of every topic has lag 0 and pending 0 for its group, the
 * same in two reads `intervalMs` apart: the workers feed each other (channel → language → flow →
 * channel), so one clean read can fall between one worker's acknowledgement and the next one's
 * read of what it published; two equal clean reads a second apart, with no entry added between
 * them, mean the chain has stopped. Resolves false when `timeoutS` passes first.
 */
export async function drain(
  target: LayoutTarget,
  { timeoutS, intervalMs = 1000 }: { timeoutS: number; intervalMs?: number },
): Promise<boolean> {
  const { redis, prefix, partitions, say = () => undefined } = target;
  const streams = streamsToWatch(await findLegacyKeys(redis, prefix), partitions);
  const deadline = Date.now() + timeoutS * 1000;
  let clean: string | undefined;
  let last = '';
  for (;;) {
    const state = await readLegacyState(redis, prefix, streams);
    const left = undrained(state);
    const line = summary(state);
    if (line !== last) say(`draining: ${line}`);
    last = line;
    if (left.length === 0) {
      const now = signature(state);
      if (clean === now) return true;
      clean = now;
    } else {
      clean = undefined;
    }
    if (Date.now() + intervalMs > deadline) return false;
    await sleep(intervalMs);
  }
}

/**
 * Moves one legacy dead letter to a partition's dead-letter stream, keeping its fields and its
 * id, and deletes it from the legacy stream, in one script: a crash leaves the letter in one
 * place or the other, never both and never neither, so re-running moves each letter once. The
 * script touches two slots, which a single server allows; on a cluster the same steps run as
 * commands (`moveDeadLetter`). Keeping the id keeps each partition's letters in the order they
 * failed; a partition stream
 * whose last id is already past it (letters written by the new code before the switch) takes it
 * under a new id. A letter found there under its own id is a copy already made (a restored
 * backup of the legacy stream): only the legacy one is deleted.
 */
const MOVE_DEAD_LETTER = `
if #redis.call('XRANGE', KEYS[2], ARGV[1], ARGV[1]) == 0 then
  local added = redis.pcall('XADD', KEYS[2], ARGV[1], unpack(ARGV, 2))
  if type(added) == 'table' and added.err then
    redis.call('XADD', KEYS[2], '*', unpack(ARGV, 2))
  end
end
return redis.call('XDEL', KEYS[1], ARGV[1])`;

/**
 * MOVE_DEAD_LETTER for one letter. On a cluster, where the two streams lie in different slots, its
 * steps as commands: copied under its id unless a copy is there, then deleted from the legacy
 * stream. A crash in between leaves it in both, and the next run only deletes the legacy one;
 * except for a letter that could not keep its id (its partition's dead letters already past it,
 * which the components' refusal to start before the switch leaves to a hand-made stream): a crash
 * right after its copy under a new id copies it again on the next run.
 */
async function moveDeadLetter(
  redis: Redis,
  legacy: string,
  dead: string,
  id: string,
  fields: string[],
): Promise<void> {
  if (!isCluster(redis)) {
    await redis.eval(MOVE_DEAD_LETTER, 2, legacy, dead, id, ...fields);
    return;
  }
  if ((await redis.xrange(dead, id, id)).length === 0) {
    await redis.call('XADD', dead, id, ...fields).catch((error: unknown) => {
      if (!/equal or smaller/.test(String((error as Error).message))) throw error;
      return redis.call('XADD', dead, '*', ...fields);
    });
  }
  await redis.xdel(legacy, id);
}

/** The partition a dead letter goes to: that of its message's ordering key; 0 without one. */
export function deadLetterPartition(data: string | undefined, partitions: number): number {
  let message: unknown;
  try {
    message = JSON.parse(data ?? '');
  } catch {
    return 0;
  }
  const key = orderingKeyOf(message);
  // partitionOf spreads messages without a key at random; a letter goes to a fixed place.
  return key === undefined ? 0 : partitionOf(key, partitions);
}

export interface SwitchResult {
  /** Legacy markers copied (each to every partition of its topic). */
  markers: number;
  deadLetters: number;
  /** Legacy keys deleted (streams, failure hashes, leases, dead-letter streams). */
  deleted: number;
}

/** Why switch refused: the former layout still holds work, or old workers still hold leases. */
export class NotDrainedError extends Error {}

/**
 * Retires the former layout once drained: copies each dedupe marker to every partition of its
 * topic, moves the dead letters, deletes the legacy streams, failure hashes, leases and markers.
 * Every step is safe to re-run; running it on a migrated Redis changes nothing.
 */
export async function switchLayout(target: LayoutTarget): Promise<SwitchResult> {
  const { redis, prefix, partitions, say = () => undefined } = target;
  // The drain's check, once: two equal clean reads a second apart.
  if (!(await drain(target, { timeoutS: 1.5, intervalMs: 1000 }))) {
    const state = await readLegacyState(
      redis,
      prefix,
      streamsToWatch(await findLegacyKeys(redis, prefix), partitions),
    );
    throw new NotDrainedError(
      `the former layout is not drained (${summary(state)}): stop the api, keep the old workers running and run ./scripts/migrate-stream-layout.sh drain`,
    );
  }
  const found = await findLegacyKeys(redis, prefix);
  const leases = [...found.values()].flatMap((k) => k.leases);
  if (leases.length > 0) {
    throw new NotDrainedError(
      `old workers still hold ${leases.length} partition leases (${leases.slice(0, 3).join(', ')}${leases.length > 3 ? ', ...' : ''}): stop them first (a lease ends when its worker stops, or within CONSUMER_LEASE_MS after a crash)`,
    );
  }
  const result: SwitchResult = { markers: 0, deadLetters: 0, deleted: 0 };
  for (const topic of TOPICS) {
    result.markers += await copyMarkers(target, topic);
    result.deadLetters += await moveDeadLetters(target, topic);
  }
  const doomed = TOPICS.flatMap((topic) => {
    const keys = found.get(topic)!;
    const streams = new Set([...keys.streams, ...Array.from({ length: partitions }, (_, p) => p)]);
    return [
      ...[...streams].flatMap((p) => [
        LEGACY_LAYOUT.partition(prefix, topic, p),
        LEGACY_LAYOUT.lease(prefix, topic, p),
      ]),
      ...keys.leases,
      LEGACY_LAYOUT.failures(prefix, topic),
      LEGACY_LAYOUT.dead(prefix, topic),
    ];
  });
  // One command per key: the keys lie in many slots.
  for (const n of await Promise.all([...new Set(doomed)].map((key) => redis.del(key)))) {
    result.deleted += n;
  }
  say(
    `switched: ${result.markers} dedupe markers copied to every partition, ${result.deadLetters} dead letters moved, ${result.deleted} legacy keys deleted`,
  );
  return result;
}

/**
 * Copies each legacy dedupe marker of `topic` to the marker of every partition of the topic with
 * its remaining TTL, then deletes it. A marker is named by the update id alone and does not say
 * which partition its message went to, and the edge looks a retried update up in the partition
 * of its ordering key: a copy in every partition keeps the edge refusing a platform's retry of an
 * update accepted before the switch. SET NX keeps a newer marker; a crash between the copies and
 * the delete leaves the legacy marker, which the next run copies again to the same effect.
 */
async function copyMarkers(target: LayoutTarget, topic: Topic): Promise<number> {
  const { redis, prefix, partitions } = target;
  const base = legacyBase(prefix, topic);
  const keys = topicKeys(prefix, topic, partitions);
  let copied = 0;
  await scanEveryMaster(redis, LEGACY_LAYOUT.seenPattern(literal(prefix), topic), async (batch) => {
    const ttls = ((await redis.pipeline(batch.map((key) => ['pttl', key])).exec()) ?? []).map(
      ([error, ttl]) => {
        if (error) throw error;
        return Number(ttl);
      },
    );
    // -2: expired since SCAN saw it.
    const live = batch.flatMap((key, i) => (ttls[i] === -2 ? [] : [{ key, ttl: ttls[i]! }]));
    // The copies first, one command per key (each partition's marker lies in its own slot), then
    // the legacy markers.
    await Promise.all(
      live.flatMap(({ key, ttl }) => {
        const id = key.slice(`${base}seen:`.length);
        return Array.from({ length: partitions }, (_, p) =>
          ttl > 0
            ? redis.set(keys.seen(p, id), '1', 'PX', ttl, 'NX')
            : redis.set(keys.seen(p, id), '1', 'NX'),
        );
      }),
    );
    await Promise.all(live.map(({ key }) => redis.del(key)));
    copied += live.length;
  });
  return copied;
}

/** Moves the legacy dead letters of `topic` to the partition of their message's ordering key. */
async function moveDeadLetters(target: LayoutTarget, topic: Topic): Promise<number> {
  const { redis, prefix, partitions } = target;
  const legacy = LEGACY_LAYOUT.dead(prefix, topic);
  const keys = topicKeys(prefix, topic, partitions);
  let moved = 0;
  for (;;) {
    // Each letter moved is deleted, so the head of the stream is always the next one.
    const batch = await redis.xrange(legacy, '-', '+', 'COUNT', 100);
    if (batch.length === 0) return moved;
    for (const [id, fields] of batch) {
      let data: string | undefined;
      for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === 'data') data = fields[i + 1];
      await moveDeadLetter(
        redis,
        legacy,
        keys.dead(deadLetterPartition(data, partitions)),
        id,
        fields,
      );
      moved += 1;
    }
  }
}

function loadSettings(): {
  redisUrl: string;
  redisTlsCa: string;
  prefix: string;
  partitions: number;
} {
  try {
    const config = loadConfig(process.env);
    return {
      redisUrl: config.redisUrl,
      redisTlsCa: config.redisTlsCa,
      prefix: config.stream.prefix,
      partitions: config.stream.partitions,
    };
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`error: BW_ERR_CONFIG: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
}

const USAGE = `usage: migrate-stream-layout.sh (status | drain [--timeout S] | switch)
see docs/operations.md, "Stream key layout"`;

async function main(argv: string[]): Promise<number> {
  const [step, ...rest] = argv;
  let timeoutS = 600;
  if (step === 'drain' && rest.length > 0) {
    timeoutS = Number(rest[1]);
    if (rest[0] !== '--timeout' || rest.length !== 2 || !(timeoutS >= 0)) {
      console.error(`error: drain takes --timeout <seconds>\n${USAGE}`);
      return 2;
    }
  } else if (!['status', 'drain', 'switch'].includes(step ?? '') || rest.length > 0) {
    console.error(`error: unknown step "${step ?? ''}"\n${USAGE}`);
    return 2;
  }
  const settings = loadSettings();
  const { redisUrl, prefix, partitions } = settings;
  const redis = createRedis(redisUrl, {
    name: 'botwire-migrate-stream-layout',
    tlsCaFile: settings.redisTlsCa,
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
  } catch (error) {
    console.error(
      `error: BW_ERR_UNAVAILABLE: cannot reach Redis at ${maskUrl(redisUrl)}: ${(error as Error).message}`,
    );
    return 3;
  }
  try {
    const target: LayoutTarget = { redis, prefix, partitions, say: (line) => console.error(line) };
    if (step === 'status') {
      for (const s of await status(target)) {
        console.log(
          `${s.topic}: former layout ${s.legacyStreams} streams, ${s.lag} unread, ${s.pending} pending, ${s.deadLetters} dead letters, ${s.markers} dedupe markers; new layout ${s.newStreams > 0 ? `in use (${s.newStreams} of ${partitions} partition streams)` : 'not in use'}`,
        );
      }
      return 0;
    }
    if (step === 'drain') {
      if (await drain(target, { timeoutS })) {
        console.error('drained: every legacy partition is read and acknowledged by its group');
        return 0;
      }
      console.error(
        `error: not drained after ${timeoutS} s: are the old workers running (and the api stopped)? run drain again to keep waiting`,
      );
      return 1;
    }
    await switchLayout(target);
    return 0;
  } catch (error) {
    if (error instanceof NotDrainedError) {
      console.error(`error: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    redis.disconnect();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

import { BotwireError } from '../errors.ts';
import { defineScript, isCluster, type Redis } from '../redis.ts';
import { writeAcknowledged, type ReplicaWait } from '../replica-wait.ts';
import { describeProblems, type SchemaRegistry } from '../schemas.ts';
import { orderingKeyOf, partitionOf, schemaOf, topicKeys, type Topic } from './topics.ts';

/** A message for a topic, as handlers return them and producers publish them. */
export interface Outgoing {
  topic: Topic;
  message: unknown;
}

/** A message published at most once per `id` (a platform update id) within the dedupe window. */
export interface OnceMessage {
  id: string;
  message: unknown;
}

export interface ProducerOptions {
  redis: Redis;
  schemas: SchemaRegistry;
  /** Key prefix, see `STREAM_PREFIX`. */
  prefix: string;
  /** Approximate length kept of each partition stream on XADD (entries), see `STREAM_MAXLEN`. */
  maxLen: number;
  /** Partitions per topic, see `TOPIC_PARTITIONS`. */
  partitions: number;
  /** Called once per published message, for metrics. */
  onPublished?: (topic: Topic) => void;
}

// KEYS come in pairs (dedupe marker, partition stream). The SET NX of each marker and the XADD it
// guards run in one script, so a redelivered update is either published with its marker or not
// at all. All keys are of one partition (one hash tag, one Cluster slot).
const PUBLISH_ONCE = `
local out = {}
for i = 1, #KEYS, 2 do
  if redis.call('SET', KEYS[i], '1', 'NX', 'EX', ARGV[2]) then
    out[#out + 1] = redis.call('XADD', KEYS[i + 1], 'MAXLEN', '~', ARGV[1], '*', 'data', ARGV[2 + (i + 1) / 2])
  else
    out[#out + 1] = false
  end
end
return out`;

// PUBLISH_ONCE behind an admission check, for one Redis server (its keys span slots).
// KEYS: the ledgers, each followed by the streams whose lengths count with it; then (marker,
// partition stream) pairs. ARGV: maxLen, ttl, now (ms), horizon (ms), max, the number of ledgers,
// per ledger how many streams count with it, per message its ledger (1-based) and member, then
// each message's data. Each ledger is trimmed of members older than the horizon and counted with
// its streams; one over `max` refuses the call, writing nothing: the answer is that ledger's
// number. Otherwise each new message is published and its member entered in its ledger (score
// now), whose expiry is renewed; the answer is the entry ids, false for a duplicate.
const PUBLISH_ONCE_ADMITTED = `
local maxLen, ttl = ARGV[1], ARGV[2]
local now, horizon, max = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local ledgers = {}
local k, a = 1, 7
for l = 1, tonumber(ARGV[6]) do
  local key = KEYS[k]
  local counted = tonumber(ARGV[a])
  k, a = k + 1, a + 1
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - horizon)
  local waiting = redis.call('ZCARD', key)
  for j = 1, counted do
    waiting = waiting + redis.call('XLEN', KEYS[k])
    k = k + 1
  end
  if waiting > max then return l end
  ledgers[l] = key
end
local n = (#KEYS - k + 1) / 2
local out, entered = {}, {}
for i = 0, n - 1 do
  local ledger = tonumber(ARGV[a + 2 * i])
  if redis.call('SET', KEYS[k + 2 * i], '1', 'NX', 'EX', ttl) then
    out[#out + 1] = redis.call('XADD', KEYS[k + 2 * i + 1], 'MAXLEN', '~', maxLen, '*', 'data', ARGV[a + 2 * n + i])
    redis.call('ZADD', ledgers[ledger], now, ARGV[a + 2 * i + 1])
    entered[ledger] = true
  else
    out[#out + 1] = false
  end
end
for l in pairs(entered) do redis.call('PEXPIRE', ledgers[l], horizon) end
return out`;

/** The producer's scripts, for a connection to define as it is made (see `createKit`). */
export const PRODUCER_SCRIPTS = {
  bwPublishOnce: { lua: PUBLISH_ONCE },
  bwPublishOnceAdmitted: { lua: PUBLISH_ONCE_ADMITTED },
};

/**
 * Admission by ledgers, checked in the script that publishes (`Producer.publishOnceAdmitted`):
 * sorted sets of what was admitted and is not finished yet (member, score the time admitted).
 */
export interface LedgerAdmission {
  /** Each ledger's key, and the streams whose lengths count with it. */
  ledgers: readonly { key: string; counted: readonly string[] }[];
  /** Per message, in order: the index of its ledger in `ledgers`, and its member there. */
  members: readonly { ledger: number; member: string }[];
  /** Most a ledger may hold, its streams counted, for the call to be admitted. */
  max: number;
  /** Members older than this (ms) are trimmed first, and a ledger expires this long after its last entry. */
  horizonMs: number;
  /** The time of admission (ms). */
  now: number;
}

/** The scripts as ioredis commands (defined once per connection). */
interface PublishOnceCommands {
  bwPublishOnce(numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  bwPublishOnceAdmitted(numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

type OnceScript = keyof PublishOnceCommands;

function unavailable(error: unknown): BotwireError {
  return new BotwireError('BW_ERR_UNAVAILABLE', 'could not publish: Redis is unavailable', {
    cause: error,
  });
}

/**
 * Validates messages against their topic's schema and XADDs them as JSON in the field `data`, to
 * the partition of their `ordering_key`. A message that fails its schema is refused with
 * `BW_ERR_MESSAGE_INVALID` and nothing is written.
 */
export class Producer {
  readonly #options: ProducerOptions;

  constructor(options: ProducerOptions) {
    this.#options = options;
    // The kit's connections are made with the script (createKit says why); one made elsewhere
    // (the topic scripts', a bench's) gets it here, before it carries commands.
    for (const [name, script] of Object.entries(PRODUCER_SCRIPTS)) {
      if (!(name in options.redis)) defineScript(options.redis, name, script);
    }
  }

  /** Checks a message against its topic's schema and returns it serialised. */
  encode(topic: Topic, message: unknown): string {
    const result = this.#options.schemas.validate(schemaOf(topic), message);
    if (!result.ok) {
      throw new BotwireError(
        'BW_ERR_MESSAGE_INVALID',
        `message for topic ${topic} fails its schema: ${describeProblems(result.problems)}`,
        { details: { topic, problems: result.problems } },
      );
    }
    return JSON.stringify(message);
  }

  /** The partition stream a message goes to. */
  streamFor(topic: Topic, message: unknown): string {
    const { prefix, partitions } = this.#options;
    const keys = topicKeys(prefix, topic, partitions);
    return keys.partitions[partitionOf(orderingKeyOf(message), partitions)]!;
  }

  /** Publishes one message; resolves to its stream entry id. */
  async publish(topic: Topic, message: unknown): Promise<string> {
    const [id] = await this.publishMany([{ topic, message }]);
    return id!;
  }

  /**
   * Publishes several messages in one round trip, in order. All are validated before any is
   * written, so a bad one publishes nothing.
   */
  async publishMany(messages: readonly Outgoing[]): Promise<string[]> {
    if (messages.length === 0) return [];
    const encoded = messages.map(({ topic, message }) => ({
      topic,
      stream: this.streamFor(topic, message),
      data: this.encode(topic, message),
    }));
    const { redis, maxLen, onPublished } = this.#options;
    // Plain commands, not a pipeline of our own: on an auto-pipelined connection they join the
    // other commands of this turn of the event loop (other handlers' publishes and
    // acknowledgements) in one write, and wait for the write in flight like them.
    let ids: string[];
    try {
      ids = (await Promise.all(
        encoded.map(({ stream, data }) =>
          redis.xadd(stream, 'MAXLEN', '~', maxLen, '*', 'data', data),
        ),
      )) as string[];
    } catch (error) {
      throw unavailable(error);
    }
    for (const { topic } of encoded) onPublished?.(topic);
    return ids;
  }

  /**
   * Publishes each message unless one with the same `id` was published to the topic within
   * `ttlS` seconds; atomic per call.
   *
   * With `wait` (replicas > 0), the script is followed in the same pipeline, so on the same node
   * and connection, by `WAIT <replicas> <timeoutMs>`; fewer replicas acknowledging in time is
   * `BW_ERR_UNAVAILABLE`. The write stays on the master: a retry with the same ids finds them
   * seen (null) and waits again, and a master lost before replicating takes the markers with it,
   * so the retry publishes them on the promoted replica.
   * @returns the new entry id of each message, or null for a duplicate.
   */
  async publishOnce(
    topic: Topic,
    messages: readonly OnceMessage[],
    ttlS: number,
    wait?: ReplicaWait,
  ): Promise<(string | null)[]> {
    if (messages.length === 0) return [];
    const { maxLen } = this.#options;
    const entries = this.#onceEntries(topic, messages);
    // One script per partition: its markers and its stream share the partition's slot, and a
    // script may touch one slot only.
    const byPartition = new Map<string, { index: number; marker: string; data: string }[]>();
    entries.forEach(({ stream, marker, data }, index) => {
      const group = byPartition.get(stream) ?? [];
      group.push({ index, marker, data });
      byPartition.set(stream, group);
    });
    const ids: (string | null)[] = new Array<string | null>(messages.length).fill(null);
    let acknowledged = Infinity;
    try {
      await Promise.all(
        [...byPartition].map(async ([stream, group]) => {
          const pairs = group.flatMap(({ marker }) => [marker, stream]);
          const args = [pairs.length, ...pairs, maxLen, ttlS, ...group.map((m) => m.data)];
          const written = await this.#runOnce('bwPublishOnce', args, wait);
          const answer = written.answer as (string | null)[];
          group.forEach(({ index }, i) => (ids[index] = answer[i] ?? null));
          acknowledged = Math.min(acknowledged, written.acknowledged);
        }),
      );
    } catch (error) {
      throw unavailable(error);
    }
    return this.#published(topic, ids, acknowledged, wait);
  }

  /**
   * `publishOnce` behind an admission check made by the same script, on one Redis server only
   * (its keys span slots; on a cluster check first and publish after, as the edge does): when a
   * ledger of `admission`, trimmed of what is older than its horizon, holds more than `max` with
   * its streams' lengths counted, nothing is written and the answer is `{ refused }`, the index of
   * that ledger. Otherwise each new message is published and its member entered in its ledger;
   * a duplicate enters nothing. `wait` is as for `publishOnce`.
   */
  async publishOnceAdmitted(
    topic: Topic,
    messages: readonly OnceMessage[],
    ttlS: number,
    admission: LedgerAdmission,
    wait?: ReplicaWait,
  ): Promise<{ refused: number } | { ids: (string | null)[] }> {
    const { redis, maxLen } = this.#options;
    if (isCluster(redis)) throw new Error('publishOnceAdmitted needs one Redis server');
    if (admission.members.length !== messages.length) {
      throw new Error('publishOnceAdmitted needs one member per message');
    }
    if (messages.length === 0) return { ids: [] };
    const entries = this.#onceEntries(topic, messages);
    const { ledgers, members, max, horizonMs, now } = admission;
    const keys = [
      ...ledgers.flatMap(({ key, counted }) => [key, ...counted]),
      ...entries.flatMap(({ marker, stream }) => [marker, stream]),
    ];
    const args = [
      keys.length,
      ...keys,
      maxLen,
      ttlS,
      now,
      horizonMs,
      max,
      ledgers.length,
      ...ledgers.map(({ counted }) => counted.length),
      ...members.flatMap(({ ledger, member }) => [ledger + 1, member]),
      ...entries.map(({ data }) => data),
    ];
    let written: { answer: unknown; acknowledged: number };
    try {
      written = await this.#runOnce('bwPublishOnceAdmitted', args, wait);
    } catch (error) {
      throw unavailable(error);
    }
    if (typeof written.answer === 'number') return { refused: written.answer - 1 };
    const ids = (written.answer as (string | null)[]).map((id) => id ?? null);
    return { ids: this.#published(topic, ids, written.acknowledged, wait) };
  }

  /** Each message checked and serialised, with its partition stream and its dedupe marker. */
  #onceEntries(
    topic: Topic,
    messages: readonly OnceMessage[],
  ): { stream: string; marker: string; data: string }[] {
    const { prefix, partitions } = this.#options;
    const keys = topicKeys(prefix, topic, partitions);
    return messages.map(({ id, message }) => {
      const data = this.encode(topic, message);
      const p = partitionOf(orderingKeyOf(message), partitions);
      return { stream: keys.partitions[p]!, marker: keys.seen(p, id), data };
    });
  }

  /** Counts what a publish-once wrote, then holds it to the replicas asked for. */
  #published(
    topic: Topic,
    ids: (string | null)[],
    acknowledged: number,
    wait: ReplicaWait | undefined,
  ): (string | null)[] {
    // Written either way: the entries are in the stream and will be handled.
    for (const id of ids) if (id) this.#options.onPublished?.(topic);
    if (wait && acknowledged < wait.replicas) {
      throw new BotwireError(
        'BW_ERR_NO_REPLICA',
        `could not publish: ${acknowledged} of ${wait.replicas} replicas acknowledged the write within ${wait.timeoutMs} ms`,
        { details: { topic, acknowledged, replicas: wait.replicas } },
      );
    }
    return ids;
  }

  /**
   * Runs a publish-once script and, when asked, `WAIT`s for replicas in the same pipeline (so on
   * the node that took the write).
   */
  async #runOnce(
    script: OnceScript,
    args: readonly (string | number)[],
    wait: ReplicaWait | undefined,
  ): Promise<{ answer: unknown; acknowledged: number }> {
    const { redis } = this.#options;
    const [numKeys, ...rest] = args as [number, ...(string | number)[]];
    if (!wait || wait.replicas <= 0) {
      // EVALSHA, falling back to EVAL once per connection: the script is not resent per call.
      const answer = await (redis as unknown as PublishOnceCommands)[script](numKeys, ...rest);
      return { answer, acknowledged: Infinity };
    }
    // After a MOVED the pair is sent again to the slot's new master: its markers make a write
    // that ran count once.
    return writeAcknowledged(
      wait.redis ?? redis,
      (pipeline) => (pipeline as unknown as PublishOnceCommands)[script](numKeys, ...rest),
      wait,
    );
  }
}

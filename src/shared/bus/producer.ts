import { BotwireError } from '../errors.ts';
import { defineScript, isCluster, type Redis } from '../redis.ts';
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

/** The producer's script, for a connection to define as it is made (see `createKit`). */
export const PRODUCER_SCRIPTS = { bwPublishOnce: { lua: PUBLISH_ONCE } };

/**
 * How many replicas must hold a `publishOnce` write before it counts as published, and how long
 * to wait for them (Redis `WAIT`). See docs/operations.md, "Replication is asynchronous".
 */
export interface ReplicaWait {
  replicas: number;
  timeoutMs: number;
  /**
   * The connection the write and its `WAIT` go on: one of their own. `WAIT` blocks the
   * connection it is sent on until the replicas answer or the timeout passes, so on the shared
   * connection every other command for that node (other bots' keys, other partitions) would
   * queue behind it while a master has no replica. Without it, the producer's own connection.
   */
  redis?: Redis;
}

/** The script as an ioredis command (defined once per connection). */
interface PublishOnceCommand {
  bwPublishOnce(numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

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
    if (!('bwPublishOnce' in options.redis)) {
      defineScript(options.redis, 'bwPublishOnce', { lua: PUBLISH_ONCE });
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
    const { prefix, partitions, onPublished } = this.#options;
    const keys = topicKeys(prefix, topic, partitions);
    // One script per partition: its markers and its stream share the partition's slot, and a
    // script may touch one slot only.
    const byPartition = new Map<number, { index: number; marker: string; data: string }[]>();
    messages.forEach(({ id, message }, index) => {
      const data = this.encode(topic, message);
      const p = partitionOf(orderingKeyOf(message), partitions);
      const group = byPartition.get(p) ?? [];
      group.push({ index, marker: keys.seen(p, id), data });
      byPartition.set(p, group);
    });
    const ids: (string | null)[] = new Array<string | null>(messages.length).fill(null);
    let acknowledged = Infinity;
    try {
      await Promise.all(
        [...byPartition].map(async ([p, group]) => {
          const written = await this.#publishOnceTo(keys.partitions[p]!, group, ttlS, wait);
          group.forEach(({ index }, i) => (ids[index] = written.ids[i] ?? null));
          acknowledged = Math.min(acknowledged, written.acknowledged);
        }),
      );
    } catch (error) {
      throw unavailable(error);
    }
    // Written either way: the entries are in the stream and will be handled.
    for (const id of ids) if (id) onPublished?.(topic);
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
   * Runs the dedupe script for messages of one partition stream and, when asked, `WAIT`s for
   * replicas in the same pipeline (so on the node that took the write).
   */
  async #publishOnceTo(
    stream: string,
    group: readonly { marker: string; data: string }[],
    ttlS: number,
    wait: ReplicaWait | undefined,
  ): Promise<{ ids: (string | null)[]; acknowledged: number }> {
    const { redis, maxLen } = this.#options;
    const pairs = group.flatMap(({ marker }) => [marker, stream]);
    const args = [pairs.length, ...pairs, maxLen, ttlS, ...group.map((m) => m.data)] as const;
    if (!wait || wait.replicas <= 0) {
      // EVALSHA, falling back to EVAL once per connection: the script is not resent per call.
      const ids = (await (redis as unknown as PublishOnceCommand).bwPublishOnce(...args)) as (
        string | null
      )[];
      return { ids, acknowledged: Infinity };
    }
    const connection = wait.redis ?? redis;
    // The WAIT must reach the node that took the write, so a redirected script is not sent on
    // alone (src/shared/redis-redirects.ts leaves pipelines with a WAIT to their caller): after a
    // MOVED the slot map is read again and the pair is sent again (its markers make a write that
    // ran count once); an ASK (the slot mid-migration) is an outage to wait out.
    for (let attempt = 1; ; attempt += 1) {
      const pipeline = connection.pipeline();
      // Queued on the pipeline (its answer comes from exec): nothing to await here.
      void (pipeline as unknown as PublishOnceCommand).bwPublishOnce(...args);
      pipeline.call('WAIT', wait.replicas, wait.timeoutMs);
      const [script, waited] = (await pipeline.exec()) ?? [];
      if (!script || !waited) throw new Error('no answer to the pipeline');
      if (script[0] && /^MOVED /.test(script[0].message) && attempt < 3 && isCluster(connection)) {
        await new Promise<void>((resolve) => connection.refreshSlotsCache(() => resolve()));
        continue;
      }
      if (script[0]) throw script[0];
      if (waited[0]) throw waited[0];
      return { ids: script[1] as (string | null)[], acknowledged: Number(waited[1]) };
    }
  }
}

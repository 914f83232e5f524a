import { BotwireError } from '../errors.ts';
import type { Redis } from '../redis.ts';
import { describeProblems, type SchemaRegistry } from '../schemas.ts';
import { schemaOf, topicKeys, type Topic } from './topics.ts';

/** A message for a topic, as handlers return them and producers publish them. */
export interface Outgoing {
  topic: Topic;
  message: unknown;
}

export interface ProducerOptions {
  redis: Redis;
  schemas: SchemaRegistry;
  /** Key prefix, see `STREAM_PREFIX`. */
  prefix: string;
  /** Approximate stream length kept on XADD (entries), see `STREAM_MAXLEN`. */
  maxLen: number;
  /** Called once per published message, for metrics. */
  onPublished?: (topic: Topic) => void;
}

/** A message published at most once per `id` (a platform update id) within the dedupe window. */
export interface OnceMessage {
  id: string;
  message: unknown;
}

// SET NX of each marker and the XADD it guards run in one script: a redelivered update is either
// published with its marker or not at all. The markers share the stream's hash tag (one slot).
const PUBLISH_ONCE = `
local out = {}
for i = 2, #KEYS do
  if redis.call('SET', KEYS[i], '1', 'NX', 'EX', ARGV[2]) then
    out[#out + 1] = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'data', ARGV[i + 1])
  else
    out[#out + 1] = false
  end
end
return out`;

/**
 * Validates messages against their topic's schema and XADDs them as JSON in the field `data`.
 * A message that fails its schema is refused with `BW_ERR_MESSAGE_INVALID` and nothing is written.
 */
export class Producer {
  readonly #options: ProducerOptions;

  constructor(options: ProducerOptions) {
    this.#options = options;
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

  /**
   * Publishes each message unless one with the same `id` was published to the topic within
   * `ttlS` seconds; atomic per call.
   * @returns the new entry id of each message, or null for a duplicate.
   */
  async publishOnce(
    topic: Topic,
    messages: readonly OnceMessage[],
    ttlS: number,
  ): Promise<(string | null)[]> {
    if (messages.length === 0) return [];
    const data = messages.map(({ message }) => this.encode(topic, message));
    const { redis, prefix, maxLen, onPublished } = this.#options;
    const { stream } = topicKeys(prefix, topic);
    let ids: (string | null)[];
    try {
      ids = (await redis.eval(
        PUBLISH_ONCE,
        messages.length + 1,
        stream,
        ...messages.map(({ id }) => `${stream}:seen:${id}`),
        maxLen,
        ttlS,
        ...data,
      )) as (string | null)[];
    } catch (error) {
      throw new BotwireError('BW_ERR_UNAVAILABLE', 'could not publish: Redis is unavailable', {
        cause: error,
      });
    }
    for (const id of ids) if (id) onPublished?.(topic);
    return ids.map((id) => id ?? null);
  }

  /** Publishes one message; resolves to its stream entry id. */
  async publish(topic: Topic, message: unknown): Promise<string> {
    const [id] = await this.publishMany([{ topic, message }]);
    return id as string;
  }

  /**
   * Publishes several messages in one round trip, in order. All are validated before any is
   * written, so a bad one publishes nothing.
   */
  async publishMany(messages: readonly Outgoing[]): Promise<string[]> {
    if (messages.length === 0) return [];
    const encoded = messages.map(({ topic, message }) => ({
      topic,
      data: this.encode(topic, message),
    }));
    const { redis, prefix, maxLen, onPublished } = this.#options;
    const pipeline = redis.pipeline();
    for (const { topic, data } of encoded) {
      pipeline.xadd(topicKeys(prefix, topic).stream, 'MAXLEN', '~', maxLen, '*', 'data', data);
    }
    let results: [Error | null, unknown][];
    try {
      results = (await pipeline.exec()) ?? [];
    } catch (error) {
      throw new BotwireError('BW_ERR_UNAVAILABLE', 'could not publish: Redis is unavailable', {
        cause: error,
      });
    }
    return results.map(([error, id], index) => {
      if (error) {
        throw new BotwireError(
          'BW_ERR_UNAVAILABLE',
          `could not publish to ${encoded[index]?.topic}`,
          {
            cause: error,
          },
        );
      }
      onPublished?.(encoded[index]!.topic);
      return id as string;
    });
  }
}

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
    const encoded = messages.map(({ topic, message }) => ({ topic, data: this.encode(topic, message) }));
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
        throw new BotwireError('BW_ERR_UNAVAILABLE', `could not publish to ${encoded[index]?.topic}`, {
          cause: error,
        });
      }
      onPublished?.(encoded[index]!.topic);
      return id as string;
    });
  }
}

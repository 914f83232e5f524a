/**
 * The topics of botwire and the Redis keys behind them. Each topic is one stream read by one
 * consumer group, named after the component that consumes it.
 *
 * Keys carry the topic in a hash tag (`botwire:{channel}`), so a topic's stream, its dead-letter
 * stream and its bookkeeping hash share one Redis Cluster slot and can be changed in one MULTI.
 */
export const TOPICS = ['channel', 'language', 'flow', 'retriver', 'indexer'] as const;

export type Topic = (typeof TOPICS)[number];

export function isTopic(name: string): name is Topic {
  return (TOPICS as readonly string[]).includes(name);
}

/** The consumer group that reads a topic: the component of the same name. */
export function groupOf(topic: Topic): string {
  return topic;
}

/** The JSON Schema (under `schemas/`) every message of the topic must satisfy. */
export function schemaOf(topic: Topic): string {
  return `topics/${topic}`;
}

/** Redis keys of one topic. */
export interface TopicKeys {
  /** The stream producers XADD to. */
  stream: string;
  /** Messages that failed for good, with their reason. */
  dead: string;
  /** Last failure of each still-pending entry (hash: entry id -> reason), for dead-letter reasons. */
  failures: string;
}

export function topicKeys(prefix: string, topic: Topic): TopicKeys {
  const stream = `${prefix}:{${topic}}`;
  return { stream, dead: `${stream}:dead`, failures: `${stream}:failures` };
}

/**
 * The topics of botwire and the Redis keys behind them.
 *
 * A topic is split into `partitions` streams. A message goes to the partition its ordering key
 * hashes to (a conversation's messages all land in one partition), and each partition is read by
 * one process of the consuming component at a time, so one conversation's messages are handled in
 * the order they arrived, while different conversations spread over processes. Each partition is
 * a stream read through the component's consumer group.
 *
 * Every key of a partition carries the partition as its Redis Cluster hash tag
 * (`botwire:{channel:p3}`, `botwire:{channel:p3}:dead`, …): a partition's stream, pending list,
 * failure reasons, dead letters, lease and dedupe markers share one slot, so every step that
 * changes several of them (an acknowledgement with its failure reason, a dead-lettering, a
 * publish with its dedupe marker, a replay) stays one MULTI or script, while a topic's partitions
 * spread over a cluster's masters. Only the member set is per topic (`botwire:{channel}:members`).
 *
 * `LEGACY_LAYOUT` names the keys of the layout before this one (one hash tag per topic), which
 * `scripts/migrate-stream-layout.sh` drains and retires (docs/operations.md, "Stream key layout").
 */
import { membersKey } from './members.ts';

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
  /** The partition streams, by partition number. */
  partitions: readonly string[];
  /** Live consumers of the group (sorted set: name -> heartbeat deadline in ms). */
  members: string;
  /** The lease key of a partition: who reads it now. */
  lease(partition: number): string;
  /** Last failure of each still-pending entry of a partition (hash: entry id -> reason). */
  failures(partition: number): string;
  /** Messages of a partition that failed for good, with their reason. */
  dead(partition: number): string;
  /** The dedupe marker of a message id published with `publishOnce` to a partition. */
  seen(partition: number, id: string): string;
}

/** The hash-tagged base of a partition's keys: `<prefix>:{<topic>:p<n>}`. */
export function partitionBase(prefix: string, topic: Topic, partition: number): string {
  return `${prefix}:{${topic}:p${partition}}`;
}

const cache = new Map<string, TopicKeys>();

/** The keys of a topic (built once per prefix, topic and partition count). */
export function topicKeys(prefix: string, topic: Topic, partitions: number): TopicKeys {
  const id = `${prefix}\u0000${topic}\u0000${partitions}`;
  let keys = cache.get(id);
  if (!keys) {
    keys = buildKeys(prefix, topic, partitions);
    cache.set(id, keys);
  }
  return keys;
}

function buildKeys(prefix: string, topic: Topic, partitions: number): TopicKeys {
  const bases = Array.from({ length: partitions }, (_, p) => partitionBase(prefix, topic, p));
  const base = (partition: number): string => {
    const key = bases[partition];
    if (key === undefined) throw new RangeError(`no partition ${partition} of ${topic}`);
    return key;
  };
  return {
    partitions: bases,
    members: membersKey(prefix, topic),
    lease: (partition) => `${base(partition)}:lease`,
    failures: (partition) => `${base(partition)}:failures`,
    dead: (partition) => `${base(partition)}:dead`,
    seen: (partition, id) => `${base(partition)}:seen:${id}`,
  };
}

/**
 * The keys of the former layout, where every key of a topic carried the topic as its hash tag
 * (`<prefix>:{<topic>}:p<n>`): read only by the migration that drains and retires them.
 */
export const LEGACY_LAYOUT = {
  partition: (prefix: string, topic: Topic, partition: number): string =>
    `${prefix}:{${topic}}:p${partition}`,
  dead: (prefix: string, topic: Topic): string => `${prefix}:{${topic}}:dead`,
  failures: (prefix: string, topic: Topic): string => `${prefix}:{${topic}}:failures`,
  lease: (prefix: string, topic: Topic, partition: number): string =>
    `${prefix}:{${topic}}:lease:p${partition}`,
  /** Pattern of the dedupe markers (SCAN MATCH). */
  seenPattern: (prefix: string, topic: Topic): string => `${prefix}:{${topic}}:seen:*`,
};

/** The ordering key of a message: its `ordering_key` field, when it has one. */
export function orderingKeyOf(message: unknown): string | undefined {
  const key = (message as { ordering_key?: unknown } | null)?.ordering_key;
  return typeof key === 'string' && key !== '' ? key : undefined;
}

/**
 * The partition of an ordering key (32-bit FNV-1a, stable across processes and releases).
 * Messages without a key are spread at random.
 */
export function partitionOf(key: string | undefined, partitions: number): number {
  if (key === undefined) return Math.floor(Math.random() * partitions);
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % partitions;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The bot a message is for, which the consumer shares its handler slots by: the `app_id` of the
 * message's conversation (`conversation`, `bot_output.conversation`, a retriever query's
 * `reply_to.conversation`) or of a platform payload (`bot_input`). An `indexer` message, or a
 * retriever query made without a conversation, goes by its `collection_name`. Undefined when the
 * message names none.
 */
export function fairnessKeyOf(message: unknown): string | undefined {
  type AppRef = { app_id?: unknown } | undefined;
  const m = message as {
    conversation?: AppRef;
    bot_input?: AppRef;
    bot_output?: { conversation?: AppRef };
    reply_to?: { conversation?: AppRef };
    collection_name?: unknown;
  } | null;
  if (typeof m !== 'object' || m === null) return undefined;
  return (
    text(m.conversation?.app_id) ??
    text(m.bot_input?.app_id) ??
    text(m.bot_output?.conversation?.app_id) ??
    text(m.reply_to?.conversation?.app_id) ??
    text(m.collection_name)
  );
}

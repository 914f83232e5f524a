/**
 * Backpressure at the edge. Every `intervalMs` while callbacks arrive, the edge adds up what
 * waits in the pipeline's topics (channel, language, flow): entries its group has not read yet
 * (`lag`) plus entries read and not acknowledged yet (`pending`), over every partition, with one
 * XINFO GROUPS each (the dead letters, which wait for no one, are not read: /metrics and the ops
 * page count them): every topic's commands at once, one write and round trip per Redis node on
 * the api's auto-pipelined connection. While that is over the limit, platform callbacks are
 * refused with 503 and Retry-After (`BW_ERR_OVERLOADED`): the platforms deliver them again
 * later, so an overloaded pipeline keeps replying at its own pace instead of queueing without
 * bound and answering every message late. A failed sample (Redis down, a cluster node failing
 * over) keeps the last good figure rather than reading as no backlog: on a cluster the other
 * topics still take callbacks meanwhile, and backpressure must not switch off unseen.
 *
 * At rest it reads nothing: an interval in which no callback asked (`overloaded`) takes no
 * sample while the last figure is within the limit, and the first callback after such a rest
 * starts a sample at once. The callbacks that arrive before that sample is in are judged by the
 * figure from before the rest, which was within the limit; if the sample fails (a cluster master
 * failing over), that figure stands until one succeeds, as any last good figure does. Over the
 * limit it samples on, callbacks or not, so that the platforms' retries after an overload meet a
 * fresh figure. An idle api otherwise sent 24 XINFO GROUPS four times a second (with the default
 * 8 partitions): half of every command Redis served at rest.
 */
import type { Logger } from '../shared/logger.ts';
import type { Redis } from '../shared/redis.ts';
import { groupOf, topicKeys, type Topic, type TopicKeys } from '../shared/bus/topics.ts';

/** The topics between the edge and the platform call, whose backlog delays a reply. */
const PIPELINE_TOPICS: readonly Topic[] = ['channel', 'language', 'flow'];

export interface BacklogOptions {
  redis: Redis;
  prefix: string;
  partitions: number;
  /** Messages waiting over which callbacks are refused; 0 for never. */
  max: number;
  logger: Logger;
  /** Time between samples (ms). @defaultValue 250 */
  intervalMs?: number;
}

/** Fields of one XINFO GROUPS group; RESP3 may give a map, RESP2 a flat field list. */
function fieldsOf(group: unknown): Map<string, unknown> {
  if (group instanceof Map) return group as Map<string, unknown>;
  const fields = new Map<string, unknown>();
  if (Array.isArray(group)) {
    for (let i = 0; i + 1 < group.length; i += 2) fields.set(String(group[i]), group[i + 1]);
  } else if (group && typeof group === 'object') {
    for (const [k, v] of Object.entries(group)) fields.set(k, v);
  }
  return fields;
}

/** What waits in one topic: unread plus unacknowledged entries, and its dead letters. */
export interface TopicDepth {
  topic: Topic;
  /** `unread` + `pending`. */
  waiting: number;
  /** Entries the topic's group has not read yet (XINFO GROUPS `lag`, summed over partitions). */
  unread: number;
  /** Entries read and not acknowledged yet (being handled, or waiting for a retry). */
  pending: number;
  dead: number;
}

/** XINFO GROUPS of a stream that does not exist yet: it has no backlog. */
const NO_SUCH_KEY = /^ERR no such key/;

/**
 * Every topic's depth: XINFO GROUPS of each partition (the group's `lag` plus `pending`) and XLEN
 * of its dead-letter stream, all at once (`partitionDepth`). A stream not created yet counts 0.
 * @throws the first failure of any command: a partial answer is not a smaller backlog.
 */
export async function topicDepths(
  redis: Redis,
  prefix: string,
  partitions: number,
  topics: readonly Topic[],
): Promise<TopicDepth[]> {
  return Promise.all(topics.map((topic) => topicDepth(redis, prefix, partitions, topic)));
}

async function topicDepth(
  redis: Redis,
  prefix: string,
  partitions: number,
  topic: Topic,
): Promise<TopicDepth> {
  const keys = topicKeys(prefix, topic, partitions);
  const depths = await Promise.all(
    keys.partitions.map((_, p) => partitionDepth(redis, keys, p, groupOf(topic))),
  );
  const sum = (field: 'unread' | 'pending' | 'dead'): number =>
    depths.reduce((total, depth) => total + depth[field], 0);
  const unread = sum('unread');
  const pending = sum('pending');
  return { topic, waiting: unread + pending, unread, pending, dead: sum('dead') };
}

/**
 * One partition's depth: its two commands sent at once. On the auto-pipelined connections the
 * api makes, every partition's commands of a sample leave in one write per Redis node (the
 * client groups them by the node that holds their slot), not one write per partition.
 */
async function partitionDepth(
  redis: Redis,
  keys: TopicKeys,
  partition: number,
  group: string,
): Promise<{ unread: number; pending: number; dead: number }> {
  const [waiting, dead] = await Promise.all([
    groupWaiting(redis, keys.partitions[partition]!, group),
    redis.xlen(keys.dead(partition)),
  ]);
  return { ...waiting, dead: Number(dead ?? 0) };
}

/** What `group` has not read yet and has not acknowledged yet in one partition: XINFO GROUPS. */
async function groupWaiting(
  redis: Redis,
  stream: string,
  group: string,
): Promise<{ unread: number; pending: number }> {
  const groups = await redis.xinfo('GROUPS', stream).catch((error: Error) => {
    if (NO_SUCH_KEY.test(error.message)) return [];
    throw error;
  });
  let unread = 0;
  let pending = 0;
  if (Array.isArray(groups)) {
    for (const row of groups) {
      const fields = fieldsOf(row);
      if (fields.get('name') !== group) continue;
      // lag is nil when Redis cannot tell (entries deleted in the middle of the stream).
      unread += Number(fields.get('lag') ?? 0);
      pending += Number(fields.get('pending') ?? 0);
    }
  }
  return { unread, pending };
}

/**
 * Messages waiting in `topics` (unread plus unacknowledged, every partition): the backlog
 * figure alone, one XINFO GROUPS per partition, all sent at once.
 */
export async function pipelineWaiting(
  redis: Redis,
  prefix: string,
  partitions: number,
  topics: readonly Topic[],
): Promise<number> {
  const waiting = await Promise.all(
    topics.flatMap((topic) =>
      topicKeys(prefix, topic, partitions).partitions.map((stream) =>
        groupWaiting(redis, stream, groupOf(topic)),
      ),
    ),
  );
  return waiting.reduce((sum, w) => sum + w.unread + w.pending, 0);
}

export class BacklogGauge {
  readonly #o: Required<BacklogOptions>;
  #waiting = 0;
  #timer: NodeJS.Timeout | undefined;
  #sampling = false;
  /** A callback asked since the last tick. */
  #asked = false;
  /** The last tick found nobody had asked: the next ask samples at once. */
  #resting = false;
  /** Samples failed in a row. */
  #failures = 0;

  constructor(options: BacklogOptions) {
    this.#o = { intervalMs: 250, ...options };
  }

  /** Messages waiting in the pipeline at the last sample. */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * Whether callbacks should be refused now. Asking is what keeps the samples coming (see the
   * header): only the callbacks' backpressure check asks; anything else reads `waiting`.
   */
  get overloaded(): boolean {
    this.#asked = true;
    if (this.#resting && this.#timer) {
      this.#resting = false;
      void this.sample();
    }
    return this.#isOver();
  }

  #isOver(): boolean {
    return this.#o.max > 0 && this.#waiting > this.#o.max;
  }

  /** Takes a first sample now, then samples every `intervalMs` while asked or over the limit. */
  start(): void {
    if (this.#o.max === 0 || this.#timer) return;
    this.#timer = setInterval(() => this.#tick(), this.#o.intervalMs);
    this.#timer.unref();
    void this.sample();
  }

  /**
   * Samples when a callback asked since the last tick or the last figure is over the limit;
   * otherwise rests until a callback asks.
   */
  #tick(): void {
    this.#resting = !this.#asked && !this.#isOver();
    this.#asked = false;
    if (!this.#resting) void this.sample();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Takes one sample now. */
  async sample(): Promise<void> {
    if (this.#sampling) return;
    this.#sampling = true;
    try {
      const waiting = await pipelineWaiting(
        this.#o.redis,
        this.#o.prefix,
        this.#o.partitions,
        PIPELINE_TOPICS,
      );
      const was = this.#isOver();
      this.#waiting = waiting;
      if (this.#isOver() !== was) {
        this.#o.logger.warn(
          { waiting, max: this.#o.max },
          this.#isOver()
            ? 'pipeline backlog over EDGE_MAX_BACKLOG: refusing callbacks with 503'
            : 'pipeline backlog back under EDGE_MAX_BACKLOG: accepting callbacks',
        );
      }
      this.#failures = 0;
    } catch (error) {
      // The last good figure stands: reading a failure as no backlog would switch backpressure
      // off while part of a cluster is away and the rest still takes callbacks.
      this.#failures += 1;
      if (this.#failures === 1) {
        this.#o.logger.warn(
          { err: error, waiting: this.#waiting },
          'backlog sample failed: keeping the last figure until a sample succeeds',
        );
      }
    } finally {
      this.#sampling = false;
    }
  }
}

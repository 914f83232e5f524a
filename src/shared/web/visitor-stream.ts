/**
 * A web visitor's event stream: a capped Redis stream per (bot, visitor) that channel appends the
 * bot's replies (and the visitor's own messages) to and api's event route reads. Both keys of a
 * visitor share one hash tag, so the append script stays valid on Redis Cluster.
 *
 * Exactly once: every append names its message (`once`: a reply's turn and call, or the visitor's
 * client message id). The script appends and remembers the entry id under that name in one atomic
 * step, and a second append of the same name returns the first entry's id instead of adding one.
 * So a reply redelivered after a channel process died between the append and its transcript row
 * is not shown twice.
 *
 * Announcing: on a Redis Cluster the api's hub cannot block on many visitors' streams at once
 * (they hash to different slots), so every append there also announces itself with SPUBLISH on
 * the stream's shard channel (`appendedChannel`: the stream's key and hash tag, so it lives in
 * the stream's slot and the script stays single-slot). A single server appends without it: its
 * hub blocks on the streams themselves, and a publish nobody listens to would be wasted work.
 */
import { isCluster, type Redis } from '../redis.ts';
import type { Button, ListSection } from '../messages.ts';

/** What one SSE `message` event carries (docs/web-channel.md). */
export interface WebEvent {
  /** Stable id of the message: `out:<turn_id>:<call>` or `in:<client_message_id>`. */
  id: string;
  conversation_id: string;
  direction: 'in' | 'out';
  turn_id: string;
  message_type: string;
  text?: string;
  buttons?: Button[];
  list?: { button: string; sections: ListSection[] };
  image?: { url: string; caption?: string };
  document?: { url: string; filename?: string; caption?: string };
  /** The visitor's button press or list pick (direction `in`). */
  choice_id?: string;
  created_at: string;
}

// KEYS[1] the stream, KEYS[2] the once-marker, KEYS[3] the shard channel announcing appends
// (declared so that the script's slot check covers it); ARGV: maxlen, data, ttl (s), announce
// ('1': SPUBLISH the stream's key on KEYS[3], on a cluster only).
const APPEND_ONCE = `
local done = redis.call('GET', KEYS[2])
if done then return done end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'data', ARGV[2])
redis.call('SET', KEYS[2], id, 'EX', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[3])
if ARGV[4] == '1' then redis.call('SPUBLISH', KEYS[3], KEYS[1]) end
return id`;

/** The append script, defined as the connection is made (see `createKit`'s `scripts`). */
export const WEB_SCRIPTS = { bwWebAppendOnce: { lua: APPEND_ONCE, numberOfKeys: 3 } };

interface AppendCommand {
  bwWebAppendOnce(
    stream: string,
    marker: string,
    channel: string,
    maxLen: number,
    data: string,
    ttlS: number,
    announce: '0' | '1',
  ): Promise<string>;
}

/** The stream key of one visitor of one bot. */
export function visitorStreamKey(prefix: string, appId: string, visitorId: string): string {
  return `${prefix}:web:{${appId}:${visitorId}}`;
}

/**
 * The shard channel (SPUBLISH) that announces appends to stream `key` on a cluster; its message
 * is the stream's key. It carries the key's hash tag, so it lives in the stream's slot.
 */
export function appendedChannel(key: string): string {
  return `${key}:appended`;
}

export interface VisitorStreamOptions {
  /** A connection made with `WEB_SCRIPTS`. */
  redis: Redis;
  prefix: string;
  /** Entries kept per stream, approximately (WEB_STREAM_MAXLEN). */
  maxLen: number;
  /** Expiry of a stream and its once-markers after the last append (WEB_STREAM_TTL_S, s). */
  ttlS: number;
}

/**
 * A passing signal on a visitor's stream, sent as its own SSE event type (not `message`): an
 * agent typing during a handoff. Never stored in the transcript; a widget that reconnects may
 * replay it, so it carries its time.
 */
export interface WebSignal {
  event: 'typing';
  conversation_id: string;
  /** ISO 8601. */
  at: string;
}

/** Appends to visitors' streams, once per named message. */
export class VisitorStreams {
  readonly #redis: AppendCommand;
  readonly #options: VisitorStreamOptions;
  /** Whether appends are announced: on a cluster only (see the header). */
  readonly #announce: boolean;

  constructor(options: VisitorStreamOptions) {
    if (!('bwWebAppendOnce' in options.redis)) {
      throw new Error('the Redis connection was made without WEB_SCRIPTS');
    }
    this.#redis = options.redis as unknown as AppendCommand;
    this.#options = options;
    this.#announce = isCluster(options.redis);
  }

  /**
   * Appends `event` to the visitor's stream unless a message named `event.id` was appended
   * already; resolves to the stream entry id either way.
   */
  append(appId: string, visitorId: string, event: WebEvent): Promise<string> {
    const { prefix, maxLen, ttlS } = this.#options;
    const stream = visitorStreamKey(prefix, appId, visitorId);
    return this.#redis.bwWebAppendOnce(
      stream,
      `${stream}:once:${event.id}`,
      appendedChannel(stream),
      maxLen,
      JSON.stringify(event),
      ttlS,
      this.#announce ? '1' : '0',
    );
  }

  /**
   * Appends a signal (field `event` naming its SSE event type); not once-only: a repeated
   * typing signal shows the same thing.
   */
  async signal(appId: string, visitorId: string, signal: WebSignal): Promise<string> {
    const { redis, prefix, maxLen, ttlS } = this.#options;
    const stream = visitorStreamKey(prefix, appId, visitorId);
    const transaction = redis.multi();
    transaction
      .xadd(
        stream,
        'MAXLEN',
        '~',
        maxLen,
        '*',
        'event',
        signal.event,
        'data',
        JSON.stringify(signal),
      )
      .expire(stream, ttlS);
    if (this.#announce) transaction.spublish(appendedChannel(stream), stream);
    const results = await transaction.exec();
    const [error, id] = results?.[0] ?? [new Error('the signal was not appended'), null];
    if (error) throw error;
    return String(id);
  }
}

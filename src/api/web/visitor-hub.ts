/**
 * Serves web visitors' event streams (SSE) from their Redis streams, however many clients are
 * connected, in one of two ways.
 *
 * On a single server: one reader loop and one blocking Redis connection per api process, an XREAD
 * BLOCK over every connected visitor's stream, each from the oldest position one of its clients
 * has seen. A client that connects wakes the loop (CLIENT UNBLOCK from the shared connection), so
 * its backlog is read at once rather than at the next timeout.
 *
 * On a Redis Cluster neither works: each visitor's stream has its own hash tag, so one XREAD over
 * several is CROSSSLOT, and a client id names a connection to one node. There the channel's
 * append announces itself (SPUBLISH on the stream's shard channel, `appendedChannel`, in the
 * stream's slot) and the hub (`subscriber`, a cluster connection with sharded subscribers)
 * SSUBSCRIBEs to the channel of each visitor with a client here, and on an announcement reads
 * that stream with a non-blocking XREAD from its clients' oldest position. A client that
 * connects has its backlog read at once, and again once its subscription is in place, so an
 * append between the two is not missed. Sharded pub/sub is not stored: an announcement sent while
 * the subscriber reconnects, or while a slot moves to a new master (failover, resharding: Redis
 * drops the slot's subscriptions and ioredis subscribes again on the new owner), is lost. So a
 * sweep re-reads every connected visitor's stream every `sweepMs`: an event is never lost, only
 * late by up to a sweep in those moments. Every path reads strictly after what each client was
 * sent, so nothing is repeated and order holds.
 *
 * Resuming: each event's SSE `id` is its stream entry id; a client that reconnects with
 * `Last-Event-ID` reads strictly after it, so nothing is repeated or lost (as long as the entry is
 * still retained: WEB_STREAM_MAXLEN, WEB_STREAM_TTL_S). Without one, it replays what is retained.
 */
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { BotwireError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Cluster, Redis } from '../../shared/redis.ts';
import { compareIds } from '../../shared/stream-ids.ts';
import { appendedChannel } from '../../shared/web/visitor-stream.ts';
import { StreamSlots, type StreamOwner } from './stream-slots.ts';

export type { StreamOwner };

/** Seconds between comment lines that keep idle connections (and proxies) open. */
export const HEARTBEAT_MS = 15_000;
/** Longest one XREAD blocks before the loop looks again (ms). */
const BLOCK_MS = 30_000;
/** Entries read per stream per XREAD. */
const READ_COUNT = 100;
/** On a cluster, between re-reads of every connected visitor's stream (ms). */
export const SWEEP_MS = 5000;
/** A client that lets this much unsent output pile up is disconnected (bytes). */
const MAX_BUFFERED_BYTES = 1024 * 1024;

/** Whether Redis refused the command itself (a bad id, a key of another type), not the connection. */
function isReplyError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError';
}

interface Client {
  key: string;
  /** The last entry id sent (or the client's Last-Event-ID). */
  last: string;
  out: PassThrough;
  owner: StreamOwner;
}

export interface VisitorHubOptions {
  /**
   * A dedicated connection for the reads, never shared with requests: blocking ones on a single
   * server, short ones on a cluster.
   */
  reader: Redis;
  /**
   * On a cluster only: a cluster connection made with `shardedSubscribers`, for the appends'
   * announcements (see the header). Without it the hub blocks on the streams (single server).
   */
  subscriber?: Cluster;
  /** With `subscriber`: between sweeps (ms). @defaultValue 5000 */
  sweepMs?: number;
  /** Any other connection (the edge's): it sends CLIENT UNBLOCK to wake the reader. */
  control: Redis;
  /** Most clients at once (WEB_MAX_EVENT_STREAMS). */
  maxClients: number;
  /** Most clients of one visitor at once (WEB_MAX_STREAMS_PER_VISITOR). @defaultValue 5 */
  maxPerVisitor?: number;
  /** Told the number of clients whenever it changes (the gauge). */
  onClients?: (count: number) => void;
  logger: Logger;
  /** Between heartbeats (ms). @defaultValue 15000 */
  heartbeatMs?: number;
}

type XReadReply = [string, [string, string[]][]][] | null;

export class VisitorHub {
  readonly #options: VisitorHubOptions;
  readonly #clients = new Map<string, Set<Client>>();
  readonly #slots: StreamSlots<Client>;
  #readerId: string | undefined;
  /** Counts finished XREADs: an unblock stops retrying once the read it aimed at has ended. */
  #reads = 0;
  #blocking = false;
  #idle: (() => void) | undefined;
  #closing = false;
  #loop: Promise<void> | undefined;
  #closed: Promise<void> | undefined;
  readonly #heartbeat: NodeJS.Timeout;
  /** Cluster: streams to read now (announced, newly connected, or swept). */
  readonly #pending = new Set<string>();
  #draining: Promise<void> | undefined;
  #sweep: NodeJS.Timeout | undefined;

  constructor(options: VisitorHubOptions) {
    this.#options = options;
    this.#slots = new StreamSlots({
      total: options.maxClients,
      perVisitor: options.maxPerVisitor ?? 5,
    });
    // A new connection has a new client id: learnt again before the next read.
    options.reader.on('close', () => (this.#readerId = undefined));
    // Logged when a read fails (in the loop); without a listener ioredis prints to stderr.
    options.reader.on('error', () => undefined);
    this.#heartbeat = setInterval(() => this.#beat(), options.heartbeatMs ?? HEARTBEAT_MS);
    this.#heartbeat.unref();
    const { subscriber } = options;
    if (subscriber) {
      // A lost subscriber connection costs announcements only: the sweep covers them.
      subscriber.on('error', () => undefined);
      subscriber.on('smessage', (_channel: string, key: string) => this.#schedule(key));
      this.#sweep = setInterval(() => {
        for (const key of this.#clients.keys()) this.#schedule(key);
      }, options.sweepMs ?? SWEEP_MS);
      this.#sweep.unref();
    }
  }

  /** Clients connected now. */
  get size(): number {
    return this.#slots.size;
  }

  /**
   * A new client of stream `key`, reading after `lastId` ('0-0': all that is retained). The
   * returned stream is the response body; it ends when the hub closes, and the client leaves
   * when it is closed (the visitor went away). Slots are shared as `stream-slots.ts` says: past
   * them it throws, and a bot over its share may lose its newest stream to another bot's.
   * @throws BotwireError `BW_ERR_VISITOR_STREAMS`, `BW_ERR_TOO_MANY_STREAMS` (see
   *   `StreamSlots.admit`); `BW_ERR_UNAVAILABLE` closing.
   */
  open(key: string, lastId: string, owner: StreamOwner): PassThrough {
    if (this.#closing) throw new BotwireError('BW_ERR_UNAVAILABLE', 'the server is shutting down');
    const displaced = this.#slots.admit(owner);
    if (displaced) this.#end(displaced);
    const out = new PassThrough();
    const client: Client = { key, last: lastId, out, owner };
    const known = this.#clients.get(key);
    const set = known ?? new Set<Client>();
    set.add(client);
    this.#clients.set(key, set);
    this.#slots.take(client);
    this.#options.onClients?.(this.#slots.size);
    out.once('close', () => this.#leave(client));
    // How long a browser waits before reconnecting after the connection drops (ms).
    out.write('retry: 3000\n\n');
    const { subscriber, logger } = this.#options;
    if (subscriber) {
      this.#schedule(key);
      if (!known) {
        // Read again once subscribed: an append announced before then was not heard.
        subscriber.ssubscribe(appendedChannel(key)).then(
          () => this.#schedule(key),
          (error: Error) =>
            logger.warn({ err: error.message }, 'web event streams: subscribe failed; swept'),
        );
      }
      return out;
    }
    this.#loop ??= this.#run();
    this.#wake();
    return out;
  }

  /** Ends a client's stream now (its slot is free at once). */
  #end(client: Client): void {
    this.#leave(client);
    client.out.end();
  }

  /** Whether a stream of bot `appId` is open here. */
  serves(appId: string): boolean {
    return this.#slots.ofBot(appId).length > 0;
  }

  /**
   * Ends the streams of bot `appId` that the bot no longer accepts: those opened under a channel
   * key not in `live` (all of them when it is absent or empty: the bot is gone).
   * @returns how many ended.
   */
  endStreams(appId: string, live?: ReadonlySet<string>): number {
    let ended = 0;
    for (const client of this.#slots.ofBot(appId)) {
      if (live?.has(client.owner.tokenKey)) continue;
      this.#end(client);
      ended += 1;
    }
    return ended;
  }

  #leave(client: Client): void {
    const set = this.#clients.get(client.key);
    if (!set?.delete(client)) return;
    this.#slots.release(client);
    this.#options.onClients?.(this.#slots.size);
    if (set.size > 0) return;
    this.#clients.delete(client.key);
    if (!this.#closing)
      this.#options.subscriber?.sunsubscribe(appendedChannel(client.key)).catch(() => undefined);
  }

  /** The oldest position a client of `key` has seen (reads start after it). */
  #oldest(key: string): string {
    let oldest: string | undefined;
    for (const c of this.#clients.get(key) ?? [])
      if (!oldest || compareIds(c.last, oldest) < 0) oldest = c.last;
    return oldest ?? '0-0';
  }

  /** Cluster: reads `key`'s stream soon (with any others pending), one drain at a time. */
  #schedule(key: string): void {
    if (this.#closing || !this.#clients.has(key)) return;
    this.#pending.add(key);
    if (this.#draining) return;
    this.#draining = this.#drain().finally(() => {
      this.#draining = undefined;
      // Scheduled between the drain's last look and now.
      const next = this.#pending.values().next();
      if (!next.done) {
        this.#pending.delete(next.value);
        this.#schedule(next.value);
      }
    });
  }

  /**
   * Cluster: reads every pending stream (one XREAD each, in parallel: they are on different
   * slots) until none is left; a stream with more than one read's worth is read again.
   */
  async #drain(): Promise<void> {
    const { reader, logger } = this.#options;
    while (this.#pending.size > 0 && !this.#closing) {
      const keys = [...this.#pending];
      this.#pending.clear();
      await Promise.all(
        keys.map(async (key) => {
          if (!this.#clients.has(key)) return;
          try {
            const from = this.#oldest(key);
            const reply: XReadReply = await reader.xread('COUNT', READ_COUNT, 'STREAMS', key, from);
            for (const [read, entries] of reply ?? []) {
              const behind = this.#deliver(read, from, entries);
              if (behind || entries.length >= READ_COUNT) this.#pending.add(key);
            }
          } catch (error) {
            if (this.#closing) return;
            // Refused for this stream: its clients whose own read is refused end; otherwise the
            // next sweep reads it again.
            if (isReplyError(error)) await this.#isolate([...(this.#clients.get(key) ?? [])]);
            else logger.warn({ err: (error as Error).message }, 'web event streams: read failed');
          }
        }),
      );
    }
  }

  #beat(): void {
    for (const set of this.#clients.values())
      for (const client of set) client.out.write(': keep-alive\n\n');
  }

  /** Makes the loop read again now: from idle, or by unblocking its XREAD. */
  #wake(): void {
    if (this.#idle) {
      this.#idle();
      this.#idle = undefined;
      return;
    }
    if (this.#blocking) void this.#unblock(this.#reads);
  }

  /**
   * Sends CLIENT UNBLOCK until it lands: the XREAD may not have reached Redis yet when a client
   * connects, so one that finds nothing blocked is tried again shortly, until the read it aimed
   * at has ended.
   */
  async #unblock(read: number): Promise<void> {
    for (let tries = 0; tries < 100 && this.#reads === read && !this.#closing; tries += 1) {
      try {
        if (this.#readerId && (await this.#options.control.client('UNBLOCK', this.#readerId)) === 1)
          return;
      } catch {
        // The edge's Redis is failing: the read ends by its timeout instead.
        return;
      }
      await sleep(10);
    }
  }

  async #run(): Promise<void> {
    const { reader, logger } = this.#options;
    while (!this.#closing) {
      if (this.#clients.size === 0) {
        await new Promise<void>((resolve) => (this.#idle = resolve));
        continue;
      }
      // From the snapshot on, a client that connects must wake the read that follows.
      this.#blocking = true;
      const keys = [...this.#clients.keys()];
      const ids = keys.map((key) => this.#oldest(key));
      let reply: XReadReply;
      try {
        this.#readerId ??= String(await reader.client('ID'));
        reply = await reader.xread(
          'COUNT',
          READ_COUNT,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          ...keys,
          ...ids,
        );
      } catch (error) {
        if (this.#closing) break;
        // Refused for a client's position or key: that client goes, the others are read at once.
        if (isReplyError(error) && (await this.#isolate(keys.flatMap((k) => this.#listOf(k)))))
          continue;
        logger.warn({ err: (error as Error).message }, 'web event streams: read failed; retrying');
        await sleep(1000);
        continue;
      } finally {
        this.#blocking = false;
        this.#reads += 1;
      }
      // A client left behind is read for on the next turn (it starts from the oldest position).
      for (const [key, entries] of reply ?? [])
        this.#deliver(key, ids[keys.indexOf(key)]!, entries);
    }
  }

  #listOf(key: string): Client[] {
    return [...(this.#clients.get(key) ?? [])];
  }

  /**
   * After Redis refused a read shared by several clients: reads for each of `clients` alone (one
   * pipeline, nothing delivered) and ends those whose own read Redis refuses too, so that one
   * client's position or key never stops the reads of the others.
   * @returns whether a client was ended.
   */
  async #isolate(clients: readonly Client[]): Promise<boolean> {
    if (clients.length === 0) return false;
    const pipeline = this.#options.reader.pipeline();
    for (const client of clients) pipeline.xread('COUNT', 1, 'STREAMS', client.key, client.last);
    let replies: [Error | null, unknown][] | null;
    try {
      replies = await pipeline.exec();
    } catch {
      return false; // the connection failed: an outage, not a client's doing
    }
    let ended = false;
    (replies ?? []).forEach(([error], i) => {
      const client = clients[i];
      if (!client || !isReplyError(error)) return;
      this.#options.logger.warn(
        { key: client.key, last: client.last, err: error?.message },
        'web event streams: Redis refuses this client’s read; its stream is ended',
      );
      this.#end(client);
      ended = true;
    });
    return ended;
  }

  /**
   * Writes the entries read after `from` to the clients of `key` that have not seen them. A client
   * whose position is before `from` (it connected while the read was out) gets none of them: it
   * would miss the entries between its position and `from`; the caller reads again for it.
   * @returns whether such a client was left behind.
   */
  #deliver(key: string, from: string, entries: [string, string[]][]): boolean {
    let behind = false;
    for (const client of this.#clients.get(key) ?? []) {
      if (compareIds(client.last, from) < 0) {
        behind = true;
        continue;
      }
      for (const [id, fields] of entries) {
        if (compareIds(id, client.last) <= 0) continue;
        const at = fields.indexOf('data');
        if (at < 0) continue;
        const data = fields[at + 1] ?? '{}';
        // A signal (typing) names its own event type; every other entry is a `message`.
        const named = fields.indexOf('event');
        const event = named >= 0 && fields[named + 1] === 'typing' ? 'typing' : 'message';
        client.out.write(`id: ${id}\nevent: ${event}\ndata: ${data}\n\n`);
        client.last = id;
      }
      if (client.out.writableLength > MAX_BUFFERED_BYTES) {
        // A client that does not read: it reconnects and resumes from what it received.
        client.out.destroy();
      }
    }
    return behind;
  }

  /** Ends every stream, stops the loop and closes the reader; idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#closing = true;
      clearInterval(this.#heartbeat);
      clearInterval(this.#sweep);
      for (const set of this.#clients.values()) for (const client of set) client.out.end();
      this.#idle?.();
      this.#options.reader.disconnect();
      this.#options.subscriber?.disconnect();
      await this.#draining?.catch(() => undefined);
      await this.#loop?.catch(() => undefined);
    })();
    return this.#closed;
  }
}

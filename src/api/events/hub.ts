/**
 * The live events of `GET /v2/events` for one api process: ONE reader loop (a blocking XREAD on a
 * connection of its own) follows the events stream and fans each entry out to every connected
 * client; clients never read Redis for live entries, only once to catch up from their resume
 * point (`sse-client.ts`). A heartbeat comment goes to every client each `heartbeatMs`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { BotwireError } from '../../shared/errors.ts';
import { EVENT_FIELDS, eventsKey } from '../../shared/events/types.ts';
import type { Logger } from '../../shared/logger.ts';
import { duplicateRedis, type Redis } from '../../shared/redis.ts';
import { SseClient, type EventEntry, type EventFilter } from './sse-client.ts';
import { compareIds, ZERO_ID } from '../../shared/stream-ids.ts';

export interface EventHubOptions {
  /** The api's connection (catch-up reads, stream info); duplicated for the blocking reads. */
  redis: Redis;
  /** Key prefix, see `STREAM_PREFIX`. */
  prefix: string;
  /** Clients served at once (`EVENTS_MAX_CLIENTS`). */
  maxClients: number;
  logger: Logger;
  /** Time between heartbeat comments (ms). @defaultValue 15000 */
  heartbeatMs?: number;
  /** XREAD BLOCK time of the reader loop (ms). @defaultValue 5000 */
  blockMs?: number;
  /** Unsent bytes a live client's socket may hold before the client is dropped. @defaultValue 1048576 */
  maxBufferedBytes?: number;
  /** Told the number of clients whenever it changes, for metrics. */
  onClients?: (count: number) => void;
}

/** Where a client starts: after `resume` (a stream id), or from now when absent. */
export interface OpenOptions {
  resume?: string;
  filter: EventFilter;
}

/** Entries read by one XREAD of the loop. */
const READ_COUNT = 500;

function toEntry(id: string, fields: string[]): EventEntry {
  const entry: EventEntry = { id, type: '', data: '{}' };
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const value = fields[i + 1]!;
    if (fields[i] === EVENT_FIELDS.type) entry.type = value;
    else if (fields[i] === EVENT_FIELDS.appId) entry.appId = value;
    else if (fields[i] === EVENT_FIELDS.data) entry.data = value;
  }
  return entry;
}

export class EventHub {
  readonly #o: Required<Omit<EventHubOptions, 'onClients'>> & Pick<EventHubOptions, 'onClients'>;
  readonly #key: string;
  readonly #clients = new Set<SseClient>();
  /** Clients admitted and still setting up (counted against the cap). */
  #opening = 0;
  #blocking: Redis | undefined;
  /** Resolves once the loop knows where the stream ends; the loop runs from the first client on. */
  #started: Promise<void> | undefined;
  #loop: Promise<void> | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #closing: Promise<void> | undefined;
  readonly #stop = new AbortController();

  constructor(options: EventHubOptions) {
    this.#o = { heartbeatMs: 15_000, blockMs: 5000, maxBufferedBytes: 1024 * 1024, ...options };
    this.#key = eventsKey(options.prefix);
  }

  /** Clients connected now. */
  get clients(): number {
    return this.#clients.size;
  }

  /**
   * Starts the event stream on `res`: refuses (throws, nothing written) when closing, at the cap
   * or when Redis cannot be read; otherwise writes the SSE headers and, when `resume` is older
   * than what the stream keeps (or newer than its end: the stream was lost), a `reset` event.
   */
  async open(req: IncomingMessage, res: ServerResponse, options: OpenOptions): Promise<void> {
    if (this.#closing) throw new BotwireError('BW_ERR_UNAVAILABLE', 'the api is shutting down');
    if (this.#clients.size + this.#opening >= this.#o.maxClients) {
      throw new BotwireError(
        'BW_ERR_EVENTS_BUSY',
        `this api process already serves ${this.#o.maxClients} event streams (EVENTS_MAX_CLIENTS)`,
      );
    }
    this.#opening += 1;
    let start: { cursor: string; reset?: string };
    try {
      // The loop's position is known before the client joins: whatever it delivers from then on
      // comes after what the client's catch-up can have missed.
      await this.#start();
      start = await this.#startOf(options.resume);
    } finally {
      this.#opening -= 1;
    }
    if (this.#closing) throw new BotwireError('BW_ERR_UNAVAILABLE', 'the api is shutting down');
    // Gone while the start was looked up: its close event has passed, so it is not registered.
    if (req.socket.destroyed) return;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      // Proxies such as nginx would otherwise hold events back to fill their buffers.
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    req.socket.setNoDelay(true);
    const client = new SseClient(res, options.filter, start.cursor, this.#o.maxBufferedBytes);
    this.#clients.add(client);
    this.#o.onClients?.(this.#clients.size);
    res.on('close', () => {
      client.drop();
      if (this.#clients.delete(client)) this.#o.onClients?.(this.#clients.size);
    });
    if (start.reset) client.sendControl(start.cursor, 'reset', { reason: start.reset });
    client
      .catchUp(async (after, count) => {
        const rows = await this.#o.redis.xrange(this.#key, `(${after}`, '+', 'COUNT', count);
        return rows.map(([id, fields]) => toEntry(id, fields));
      })
      .catch((error: unknown) => {
        // The client reconnects with its Last-Event-ID and tries again.
        this.#o.logger.warn({ err: error }, 'an event stream could not catch up; closed');
        client.drop();
      });
  }

  /** Ends every stream, stops the loop and closes its connection; idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      clearInterval(this.#heartbeat);
      this.#stop.abort();
      for (const client of this.#clients) client.end();
      this.#clients.clear();
      this.#o.onClients?.(0);
      this.#blocking?.disconnect();
      await this.#loop?.catch(() => undefined);
    })();
    return this.#closing;
  }

  /** Where a client starts, and why it must reload (`reset`) when its resume point is gone. */
  async #startOf(resume: string | undefined): Promise<{ cursor: string; reset?: string }> {
    const { last, keptFrom } = await this.#streamInfo();
    if (resume === undefined) return { cursor: last };
    if (compareIds(resume, keptFrom) < 0)
      return { cursor: last, reset: 'events after Last-Event-ID are no longer kept' };
    if (compareIds(resume, last) > 0)
      return { cursor: last, reset: 'Last-Event-ID is ahead of the stream: it was lost' };
    return { cursor: resume };
  }

  /**
   * The stream's last id, and the id before which entries may be gone ('0-0' when none are):
   * the newest deleted id, or, once trimming removed entries (more were added than it holds), its
   * first entry. A resume point just before the first entry may then be refused needlessly: a
   * reload too many, never an event missed.
   */
  async #streamInfo(): Promise<{ last: string; keptFrom: string }> {
    let info: unknown[];
    try {
      info = (await this.#o.redis.call('XINFO', 'STREAM', this.#key)) as unknown[];
    } catch (error) {
      if (/no such key/i.test((error as Error).message))
        return { last: ZERO_ID, keptFrom: ZERO_ID };
      throw error;
    }
    const field = (name: string): unknown => {
      const at = info.indexOf(name);
      return at >= 0 ? info[at + 1] : undefined;
    };
    const id = (name: string): string => {
      const value = field(name);
      return typeof value === 'string' ? value : ZERO_ID;
    };
    const last = id('last-generated-id');
    const maxDeleted = id('max-deleted-entry-id');
    // Redis before 7.0 does not count entries added: taken as trimmed.
    const added = field('entries-added');
    const trimmed = added === undefined || Number(added) > Number(field('length'));
    const first = field('first-entry') as [string, string[]] | null | undefined;
    // An empty stream that had entries: everything up to its last id is gone.
    const firstKept = trimmed ? (first?.[0] ?? (last === ZERO_ID ? ZERO_ID : last)) : ZERO_ID;
    return {
      last,
      keptFrom: compareIds(firstKept, maxDeleted) > 0 ? firstKept : maxDeleted,
    };
  }

  #start(): Promise<void> {
    this.#started ??= (async () => {
      const { last } = await this.#streamInfo();
      // Never auto-pipelined: a blocking read in a pipeline would hold every command behind it.
      this.#blocking = duplicateRedis(this.#o.redis, {
        connectionName: 'botwire-api:events',
        enableAutoPipelining: false,
        // The api's connection fails fast; this one waits for its first connect like a worker's.
        enableOfflineQueue: true,
      });
      this.#blocking.on('error', () => undefined); // reported by the loop, once per failed read
      this.#loop = this.#read(this.#blocking, last);
      this.#heartbeat = setInterval(() => {
        for (const client of this.#clients) client.heartbeat();
      }, this.#o.heartbeatMs);
      this.#heartbeat.unref();
    })();
    // A failed start (Redis away) is tried again by the next client.
    this.#started.catch(() => (this.#started = undefined));
    return this.#started;
  }

  async #read(blocking: Redis, from: string): Promise<void> {
    let cursor = from;
    let failures = 0;
    while (!this.#closing) {
      try {
        const result = await blocking.xread(
          'COUNT',
          READ_COUNT,
          'BLOCK',
          this.#o.blockMs,
          'STREAMS',
          this.#key,
          cursor,
        );
        failures = 0;
        for (const [, entries] of result ?? []) {
          for (const [id, fields] of entries) {
            cursor = id;
            const entry = toEntry(id, fields);
            for (const client of this.#clients) client.deliver(entry);
          }
        }
      } catch (error) {
        if (this.#closing) return;
        failures += 1;
        if (failures === 1)
          this.#o.logger.warn({ err: error }, 'reading the events stream failed; retrying');
        // The cursor is kept: once Redis is back the clients get what they missed meanwhile.
        await sleep(Math.min(100 * 2 ** failures, 5000), undefined, {
          signal: this.#stop.signal,
        }).catch(() => undefined);
      }
    }
  }
}

/**
 * One `GET /v2/events` response: its filter, what it was sent last, and the rules that keep one
 * slow reader from costing the others (or the process) anything.
 *
 * A client first catches up from its resume point by reading the stream itself, while the hub's
 * live entries wait in `pending`; then the pending ones not already sent go out, and live entries
 * are written as they come. Entries are compared by id, so none is lost or sent twice across the
 * switch. A live client whose socket holds more than `maxBufferedBytes` unsent is dropped: it
 * reconnects with `Last-Event-ID` and catches up, instead of the process buffering without bound.
 */
import type { ServerResponse } from 'node:http';
import { compareIds } from '../../shared/stream-ids.ts';

/** An entry of the events stream, as read from Redis (`data` still JSON text). */
export interface EventEntry {
  id: string;
  type: string;
  appId?: string;
  data: string;
}

/** Which events a client asked for; absent sets mean all. */
export interface EventFilter {
  types?: ReadonlySet<string>;
  /** Only events of these bots (events of no bot, `index-job` and `dead-letter`, are left out). */
  appIds?: ReadonlySet<string>;
}

/** Live entries that may wait while a client catches up, past which it is dropped. */
const MAX_PENDING = 10_000;

export class SseClient {
  readonly #res: ServerResponse;
  readonly #filter: EventFilter;
  readonly #maxBufferedBytes: number;
  /** The last entry seen (sent or filtered out): later ones only go out. */
  #cursor: string;
  #pending: EventEntry[] | undefined = [];
  #ended = false;

  constructor(res: ServerResponse, filter: EventFilter, cursor: string, maxBufferedBytes: number) {
    this.#res = res;
    this.#filter = filter;
    this.#cursor = cursor;
    this.#maxBufferedBytes = maxBufferedBytes;
  }

  get cursor(): string {
    return this.#cursor;
  }

  get ended(): boolean {
    return this.#ended || this.#res.destroyed || this.#res.writableEnded;
  }

  /** A live entry from the hub: written now, or kept until the catch-up is over. */
  deliver(entry: EventEntry): void {
    if (this.ended) return;
    if (this.#pending) {
      this.#pending.push(entry);
      if (this.#pending.length > MAX_PENDING) this.drop();
      return;
    }
    this.#writeEntry(entry);
    if (this.#res.writableLength > this.#maxBufferedBytes) this.drop();
  }

  /**
   * Sends the entries after the cursor that `read` returns, page by page, waiting for the socket
   * to drain between writes; then the live entries kept meanwhile, and goes live.
   * @param read the stream's entries after `after`, at most `count`, oldest first.
   */
  async catchUp(read: (after: string, count: number) => Promise<EventEntry[]>): Promise<void> {
    const count = 500;
    for (;;) {
      const entries = await read(this.#cursor, count);
      for (const entry of entries) {
        if (this.ended) return;
        if (!this.#writeEntry(entry)) await this.#drained();
      }
      if (entries.length < count) break;
    }
    const pending = this.#pending ?? [];
    this.#pending = undefined;
    for (const entry of pending) this.deliver(entry);
  }

  /** An event of the stream's own (`reset`), which moves the cursor to `id`. */
  sendControl(id: string, type: string, data: unknown): void {
    if (this.ended) return;
    this.#cursor = id;
    this.#res.write(`id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** A comment line, which keeps proxies from closing an idle stream. */
  heartbeat(): void {
    if (this.ended) return;
    this.#res.write(': heartbeat\n\n');
    if (this.#res.writableLength > this.#maxBufferedBytes) this.drop();
  }

  /** Ends the response cleanly (shutdown). */
  end(): void {
    if (this.ended) return;
    this.#ended = true;
    this.#res.end();
  }

  /** Closes the connection at once: the client is too slow, or its stream failed. */
  drop(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#pending = undefined;
    this.#res.destroy();
  }

  /** Writes the entry when it is new and wanted; false when the socket's buffer is full. */
  #writeEntry(entry: EventEntry): boolean {
    if (compareIds(entry.id, this.#cursor) <= 0) return true;
    this.#cursor = entry.id;
    if (!this.#wants(entry)) return true;
    return this.#res.write(`id: ${entry.id}\nevent: ${entry.type}\ndata: ${entry.data}\n\n`);
  }

  #wants(entry: EventEntry): boolean {
    const { types, appIds } = this.#filter;
    if (types && !types.has(entry.type)) return false;
    if (appIds && (entry.appId === undefined || !appIds.has(entry.appId))) return false;
    return true;
  }

  #drained(): Promise<void> {
    const res = this.#res;
    return new Promise((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }
}

/**
 * A Server-Sent Events client that reconnects as a browser's EventSource does: when the stream
 * ends or cannot be opened, it waits the reconnection time and opens it again with
 * `Last-Event-ID` set to the last event it received, for as long as it is not closed. It keeps
 * every event of every connection, in the order they arrived, so a test sees exactly what the
 * visitor's page would have drawn.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { openSse, type SseEvent, type SseStream } from './sse.ts';

export interface ResumingSse {
  /** Every event received so far, across connections, in arrival order. */
  events(): SseEvent[];
  /** Connections opened after the first one (successful or not). */
  readonly reconnects: number;
  /** Attempts refused or answered other than 200 (the server down or shutting down). */
  readonly failedAttempts: number;
  /** Whether a connection is open now. */
  connected(): boolean;
  close(): Promise<void>;
}

/**
 * Opens `url` (token in the query, as the widget does) and keeps it open until `close`.
 * @param options.retryMs the wait before reconnecting; the api's `retry: 3000`. @defaultValue 3000
 */
export function openResumingSse(
  url: string,
  headers: Record<string, string>,
  options: { retryMs?: number } = {},
): ResumingSse {
  const retryMs = options.retryMs ?? 3000;
  const done: SseEvent[] = [];
  let current: SseStream | undefined;
  let closed = false;
  let reconnects = 0;
  let failedAttempts = 0;
  let wake: (() => void) | undefined;

  const loop = (async () => {
    for (let attempt = 0; !closed; attempt += 1) {
      if (attempt > 0) {
        reconnects += 1;
        await Promise.race([sleep(retryMs), new Promise<void>((r) => (wake = r))]);
        if (closed) break;
      }
      const last = done.at(-1)?.id;
      let stream: SseStream;
      try {
        stream = await openSse(url, '', { ...headers, ...(last ? { 'last-event-id': last } : {}) });
      } catch {
        failedAttempts += 1;
        continue;
      }
      if (stream.status !== 200) {
        failedAttempts += 1;
        continue;
      }
      current = stream;
      await Promise.race([stream.ended, new Promise<void>((r) => (wake = r))]);
      stream.close();
      current = undefined;
      done.push(...stream.events);
    }
  })();

  return {
    events: () => [...done, ...(current?.events ?? [])],
    get reconnects() {
      return reconnects;
    },
    get failedAttempts() {
      return failedAttempts;
    },
    connected: () => current !== undefined,
    async close() {
      closed = true;
      wake?.();
      await loop;
    },
  };
}

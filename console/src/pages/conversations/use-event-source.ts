/**
 * A Server-Sent Events stream as a React hook, for the pages that follow one: the console's
 * `GET /v2/events` (conversations) and a web visitor's stream (test chat). The browser's
 * EventSource reconnects by itself after a dropped connection, sending the last event id; when
 * the server refuses the stream (a 4xx), it gives up, and the page is told (`closed`) so it can
 * say so and offer `retry`.
 */
import { useEffect, useRef, useState } from 'react';

/** Where the stream stands, for a visible status line. */
export type LiveStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** Called with the event's parsed JSON data and its id (`lastEventId`). */
export type EventHandler = (data: unknown, id: string) => void;

export interface EventSourceOptions {
  /** Send cookies (the console's session); the visitor stream uses its token instead. */
  withCredentials?: boolean;
  /** The server refused the stream, or it could not be reached and the browser gave up. */
  onClosed?: () => void;
}

/**
 * Follows `url` (none while it is null), dispatching each named event to `handlers[name]`.
 * Handlers may change on every render without reconnecting; a new `url` reconnects.
 */
export function useEventSource(
  url: string | null,
  handlers: Record<string, EventHandler>,
  options: EventSourceOptions = {},
): { status: LiveStatus; retry: () => void } {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const [attempt, setAttempt] = useState(0);
  const latest = useRef({ handlers, options });
  latest.current = { handlers, options };
  const names = Object.keys(handlers).sort().join(',');
  const withCredentials = options.withCredentials ?? false;

  useEffect(() => {
    if (url === null) return undefined;
    setStatus('connecting');
    const source = new EventSource(url, { withCredentials });
    source.onopen = () => setStatus('open');
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        setStatus('closed');
        latest.current.options.onClosed?.();
      } else {
        setStatus('reconnecting');
      }
    };
    for (const name of names.split(',').filter(Boolean)) {
      source.addEventListener(name, (event: MessageEvent<string>) => {
        let data: unknown;
        try {
          data = event.data === '' ? undefined : JSON.parse(event.data);
        } catch {
          return; // Not ours to show: a malformed event is dropped, the stream goes on.
        }
        latest.current.handlers[name]?.(data, event.lastEventId);
      });
    }
    return () => source.close();
  }, [url, names, withCredentials, attempt]);

  return { status, retry: () => setAttempt((n) => n + 1) };
}

/** What a status reads as on the page. */
export const LIVE_STATUS_TEXT: Record<LiveStatus, string> = {
  connecting: 'Live updates: connecting…',
  open: 'Live updates: on',
  reconnecting: 'Live updates: reconnecting…',
  closed: 'Live updates: stopped',
};

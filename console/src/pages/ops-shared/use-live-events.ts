/**
 * Follows the console's live stream (`GET /v2/events`, see docs/events.md) for some event types.
 * EventSource reconnects by itself and resumes with `Last-Event-ID`; when the server answers
 * `reset` (the events missed are no longer kept), `onReset` refetches everything the page shows.
 */
import { useEffect, useRef, useState } from 'react';
import { withQuery } from './page-query.ts';

/**
 * Whether the stream is open; `connecting` also while the browser retries after a drop;
 * `closed` when the server refused it (not signed in, too many streams): retried after
 * {@link REOPEN_MS}.
 */
export type LiveState = 'connecting' | 'live' | 'closed';

/** How long after a refused stream it is opened again (ms). */
export const REOPEN_MS = 15_000;

export interface LiveHandlers {
  /** One event of a followed type, its `data` parsed (malformed data is skipped). */
  onEvent: (type: string, data: unknown) => void;
  /** The stream cannot resume where it was: reload what the page shows. */
  onReset: () => void;
}

/** Opens one EventSource for `types` (comma-joined) while the component is mounted. */
export function useLiveEvents(types: readonly string[], handlers: LiveHandlers): LiveState {
  const [state, setState] = useState<LiveState>('connecting');
  // Bumped to open a new EventSource after the browser gave up on one.
  const [attempt, setAttempt] = useState(0);
  // The latest handlers without reopening the stream on every render.
  const latest = useRef(handlers);
  latest.current = handlers;
  const key = types.join(',');

  useEffect(() => {
    const source = new EventSource(withQuery('/v2/events', { types: key }), {
      withCredentials: true,
    });
    const onMessage = (event: MessageEvent<string>) => {
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      latest.current.onEvent(event.type, data);
    };
    const onReset = () => latest.current.onReset();
    // A source opened again after a refusal starts at the stream's end: refetch on its first open.
    let opened = attempt > 0;
    const onOpen = () => {
      setState('live');
      // On a reopen after a drop the browser resumed with Last-Event-ID and missed events are
      // replayed; the refetch also covers what the page fetched while the stream was down.
      if (opened) latest.current.onReset();
      opened = true;
    };
    let reopen: ReturnType<typeof setTimeout> | undefined;
    const onError = () => {
      // A refusal (an HTTP error, not a drop) closes the source for good: the browser does not
      // retry it, so the page does, later.
      if (source.readyState !== EventSource.CLOSED) return setState('connecting');
      setState('closed');
      reopen = setTimeout(() => setAttempt((n) => n + 1), REOPEN_MS);
    };
    for (const type of key.split(',')) source.addEventListener(type, onMessage);
    source.addEventListener('reset', onReset);
    source.addEventListener('open', onOpen);
    source.addEventListener('error', onError);
    return () => {
      clearTimeout(reopen);
      source.close();
    };
  }, [key, attempt]);

  return state;
}

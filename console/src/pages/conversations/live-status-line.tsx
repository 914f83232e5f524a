/**
 * The visible line saying whether a page's live stream is on, with a Reconnect button once the
 * browser gave up on it (see use-event-source.ts). Announced as a status.
 */
import { LIVE_STATUS_TEXT, type LiveStatus } from './use-event-source.ts';

export function LiveStatusLine({
  live,
  className = 'live',
  quiet = false,
}: {
  live: { status: LiveStatus; retry: () => void };
  /** The block class; the modifier `<className>--<status>` is added. Default `live`. */
  className?: string;
  /** Say nothing (while nothing is followed yet); a Reconnect button is still offered. */
  quiet?: boolean;
}) {
  return (
    <p role="status" className={`${className} ${className}--${live.status}`}>
      {quiet ? '' : LIVE_STATUS_TEXT[live.status]}
      {live.status === 'closed' ? (
        <button type="button" onClick={live.retry}>
          Reconnect
        </button>
      ) : null}
    </p>
  );
}

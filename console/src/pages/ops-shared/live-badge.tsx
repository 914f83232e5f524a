/** Whether the page is receiving live events. */
import type { LiveState } from './use-live-events.ts';

export function LiveBadge({ state }: { state: LiveState }) {
  return (
    <span role="status" className={`ops-live ops-live-${state}`}>
      {state === 'live'
        ? 'Live'
        : state === 'closed'
          ? 'Live updates unavailable; retrying'
          : 'Connecting to live updates…'}
    </span>
  );
}

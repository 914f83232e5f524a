/** Times as an operator reads them at a glance: "12 s ago", "3 min ago", "2 h ago". */

/**
 * How long ago `iso` was, seen at `nowMs` (ms since the epoch). A time slightly in the future
 * (clocks of the server and the browser differ) reads "just now"; an unreadable one "unknown".
 */
export function relativeTime(iso: string, nowMs: number): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return 'unknown';
  const seconds = Math.round((nowMs - then) / 1000);
  if (seconds < 2) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} d ago`;
}

/**
 * Whether a process last seen at `iso` is stale at `nowMs`: silent for longer than `afterMs`
 * (default 15,000 ms: a consumer renews its heartbeat every third of `CONSUMER_LEASE_MS`, 10 s by
 * default, so a live one is never silent that long). Unreadable times count as stale.
 */
export function isStale(iso: string, nowMs: number, afterMs = 15_000): boolean {
  const then = Date.parse(iso);
  return Number.isNaN(then) || nowMs - then > afterMs;
}

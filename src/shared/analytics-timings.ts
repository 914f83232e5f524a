/**
 * Durations in the analytics rollups (docs/analytics.md), kept as counts per bucket so that days,
 * channels and processes add up and a range's median and p90 are read from a few rows. A bucket
 * is a step of 10 % (bucket b holds [1.1^b, 1.1^(b+1)) ms; 0 holds everything under 1.1 ms), so
 * a quantile read as its bucket's geometric middle is within 5 % of the true one. Written in SQL
 * by the statement that records what is timed (`bucketSql`), read here (`quantiles`).
 */

/** What is timed: the bot's reply to a user's message, and an agent's first reply to a handoff. */
export const TIMING_MEASURES = ['bot_response', 'agent_first_reply'] as const;
export type TimingMeasure = (typeof TIMING_MEASURES)[number];

/** How a handoff ended, as `analytics_events` counts it; with `send_failed` (by code). */
export const HANDOFF_ENDS = {
  close: 'handoff_closed',
  return: 'handoff_returned',
  timeout: 'handoff_timed_out',
} as const;

const STEP = 1.1;

/** The SQL expression of the bucket of `ms` (an expression in milliseconds). */
export function bucketSql(ms: string): string {
  return `greatest(0, floor(ln(greatest(${ms}, 1)) / ln(${STEP})))::smallint`;
}

/** The bucket of `ms`, as `bucketSql` computes it (for tests and benches). */
export function bucketOf(ms: number): number {
  return Math.max(0, Math.floor(Math.log(Math.max(ms, 1)) / Math.log(STEP)));
}

export interface Quantiles {
  /** How many durations were counted. */
  count: number;
  /** Milliseconds, to the nearest; null when none was counted. */
  median: number | null;
  p90: number | null;
}

/** The middle of a bucket, in ms: the geometric middle of its bounds (0.5 for bucket 0). */
function middleOf(bucket: number): number {
  return bucket === 0 ? 0.5 : STEP ** (bucket + 0.5);
}

/**
 * The median and p90 of durations counted per bucket (nearest rank: the ⌈q·n⌉-th smallest),
 * each as its bucket's middle.
 */
export function quantiles(counts: readonly { bucket: number; count: number }[]): Quantiles {
  const sorted = [...counts].filter((c) => c.count > 0).sort((a, b) => a.bucket - b.bucket);
  const count = sorted.reduce((sum, c) => sum + c.count, 0);
  const at = (q: number): number | null => {
    if (count === 0) return null;
    const rank = Math.max(1, Math.ceil(q * count));
    let seen = 0;
    for (const c of sorted) {
      seen += c.count;
      if (seen >= rank) return Math.round(middleOf(c.bucket));
    }
    return null;
  };
  return { count, median: at(0.5), p90: at(0.9) };
}

/**
 * Durations in the analytics rollups (docs/analytics.md), kept as counts per bucket so that days,
 * channels and processes add up and a range's median and p90 are read from a few rows. A bucket
 * is a step of 10 % (bucket b holds [1.1^b, 1.1^(b+1)) ms; 0 holds everything under 1.1 ms), so
 * a quantile read as its bucket's geometric middle is within 5 % of the true one. Written in SQL
 * by the statement that records what is timed (`bucketSql`), read in SQL too (`quantilesSql`).
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

export interface Quantiles {
  /** How many durations were counted. */
  count: number;
  /** Milliseconds, to the nearest; null when none was counted. */
  median: number | null;
  p90: number | null;
}

/** A bucket as the reads report it: its geometric middle in ms, to the nearest (1 for bucket 0). */
export function msOf(bucket: number | null): number | null {
  if (bucket === null) return null;
  return bucket === 0 ? 1 : Math.round(STEP ** (bucket + 0.5));
}

/**
 * SQL of the count, median bucket and p90 bucket (nearest rank: the bucket of the ⌈q·n⌉-th
 * smallest duration) per group of `keys`, over `source`: a query of rows with the keys, `bucket`
 * and `count`. Computed where the rows are, so a long range sends back a row per group.
 */
export function quantilesSql(source: string, keys: readonly string[]): string {
  const group = keys.join(', ');
  return `select ${group}, max(total)::int as count,
      min(bucket) filter (where cum >= ceil(0.5 * total)) as median,
      min(bucket) filter (where cum >= ceil(0.9 * total)) as p90
    from (
      select ${group}, bucket,
        sum(count) over (partition by ${group} order by bucket) as cum,
        sum(count) over (partition by ${group}) as total
      from (${source}) as source
    ) as ranked
    group by ${group}`;
}

/** A group's row of `quantilesSql`: the count, and the buckets of the median and p90. */
export interface QuantileRow {
  count: number;
  median: number;
  p90: number;
}

/** A group's row of `quantilesSql` as figures; none counted when the group has no row. */
export function quantilesOf(row: QuantileRow | undefined): Quantiles {
  return row
    ? { count: row.count, median: msOf(row.median), p90: msOf(row.p90) }
    : { count: 0, median: null, p90: null };
}

/**
 * The analytics counters (docs/analytics.md), named once: flow adds a turn's counts to the rollups
 * (`src/flow/analytics/`), the api reads them (`src/api/analytics/`), and the columns of the
 * rollup tables are these names.
 */

/** What one turn adds to its bot's day row. */
export const TURN_COUNTERS = [
  'conversations',
  'new_users',
  'messages_in',
  'messages_out',
  'completed',
  'reasks',
  'fallbacks',
  'handoffs',
  'unanswered',
] as const;

/** A day row's counters, in the CSV's column order: a turn's, and the users active that day. */
export const BOT_COUNTERS = [
  'conversations',
  'new_users',
  'active_users',
  'messages_in',
  'messages_out',
  'completed',
  'reasks',
  'fallbacks',
  'handoffs',
  'unanswered',
] as const satisfies readonly (TurnCounter | 'active_users')[];

/** What a turn adds to each state it passed through. */
export const STATE_COUNTERS = [
  'entered',
  'left_forward',
  'ended',
  'handoffs',
  'reasks',
  'fallbacks',
] as const;

export type TurnCounter = (typeof TURN_COUNTERS)[number];
export type BotCounters = Record<(typeof BOT_COUNTERS)[number], number>;
export type StateCounters = Record<(typeof STATE_COUNTERS)[number], number>;

/** A rate of the figures: `part / whole` to 4 places, null when the whole is 0. */
export const rateOf = (part: number, whole: number): number | null =>
  whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000;

/**
 * The service a bot's users got over a range (docs/analytics.md): the bot's response time, an
 * agent's first reply to a handoff, how handoffs ended and the replies platforms refused, by code.
 * Read from `analytics_timings` and `analytics_events`, which channel, flow and the api add to as
 * each thing is recorded (two grouped reads of day rows). Those rows have no language or flow
 * version, so a filter on either has no service figures.
 */
import type { Knex } from '../../shared/db.ts';
import { rateOf } from '../../shared/analytics-counters.ts';
import {
  HANDOFF_ENDS,
  quantilesOf,
  quantilesSql,
  type QuantileRow,
  type Quantiles,
  type TimingMeasure,
} from '../../shared/analytics-timings.ts';
import { filtered, type AnalyticsFilter } from './filter.ts';

export interface Service {
  /** From a user's message to the platform accepting the bot's first reply to it. */
  bot_response_ms: Quantiles;
  /** From a handoff's start to an agent's first reply. */
  agent_first_reply_ms: Quantiles;
  /** Handoffs that ended in the range, by how. */
  handoffs_ended: {
    /** An agent closed the conversation. */
    closed: number;
    /** An agent gave it back to the bot. */
    returned: number;
    /** No agent took it in time: the flow's fallback ran. */
    timed_out: number;
    /** Closed or returned, of those ended; null when none ended. */
    resolved_by_agent: number | null;
  };
  /** Replies a platform refused, by its code, most first. */
  send_failures: { code: string; count: number }[];
}

/** The service figures of the range; null with a language or version filter. */
export async function readService(db: Knex, f: AnalyticsFilter): Promise<Service | null> {
  if (f.language !== undefined || f.version !== undefined) return null;
  const timings = filtered(db, 'analytics_timings', f)
    .select('measure', 'bucket', db.raw('sum(count)::int as count'))
    .groupBy('measure', 'bucket')
    .toSQL();
  const [timingRows, eventsRaw] = await Promise.all([
    db.raw<{ rows: (QuantileRow & { measure: TimingMeasure })[] }>(
      quantilesSql(timings.sql, ['measure']),
      [...timings.bindings],
    ),
    filtered(db, 'analytics_events', f)
      .select('event', 'code', db.raw('sum(count)::int as count'))
      .groupBy('event', 'code') as Promise<unknown>,
  ]);
  const events = eventsRaw as { event: string; code: string; count: number }[];
  const of = (measure: TimingMeasure) =>
    quantilesOf(timingRows.rows.find((r) => r.measure === measure));
  const ended = (event: string) => events.find((e) => e.event === event)?.count ?? 0;
  const closed = ended(HANDOFF_ENDS.close);
  const returned = ended(HANDOFF_ENDS.return);
  const timedOut = ended(HANDOFF_ENDS.timeout);
  const all = closed + returned + timedOut;
  return {
    bot_response_ms: of('bot_response'),
    agent_first_reply_ms: of('agent_first_reply'),
    handoffs_ended: {
      closed,
      returned,
      timed_out: timedOut,
      resolved_by_agent: rateOf(closed + returned, all),
    },
    send_failures: events
      .filter((e) => e.event === 'send_failed')
      .map(({ code, count }) => ({ code, count }))
      .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code)),
  };
}

type Keyed = { day: string; channel_type: string };

/** The CSV's columns with `rows=service`: a day and channel type's service figures. */
export const SERVICE_COLUMNS = [
  'day',
  'channel_type',
  'bot_responses',
  'bot_response_median_ms',
  'bot_response_p90_ms',
  'agent_first_replies',
  'agent_first_reply_median_ms',
  'agent_first_reply_p90_ms',
  'handoffs_closed',
  'handoffs_returned',
  'handoffs_timed_out',
  'send_failures',
  'send_failures_by_code',
] as const;

type ServiceRow = Record<(typeof SERVICE_COLUMNS)[number], string | number | null>;

/**
 * The service figures per day and channel type (the CSV's rows), of the days and channel types
 * that have any, in order. Codes are
 * `code=count` joined by `;`, most first: letters, digits and `_` only, so no cell can start a
 * spreadsheet formula.
 */
export async function serviceDayRows(db: Knex, f: AnalyticsFilter): Promise<ServiceRow[]> {
  const day = db.raw(`to_char(day, 'YYYY-MM-DD') as day`);
  const source = filtered(db, 'analytics_timings', f)
    .select('day', 'channel_type', 'measure', 'bucket', 'count')
    .toSQL();
  const [timingRows, eventsRaw] = await Promise.all([
    db.raw<{ rows: (Keyed & QuantileRow & { measure: TimingMeasure })[] }>(
      `select to_char(day, 'YYYY-MM-DD') as day, channel_type, measure, count, median, p90
       from (${quantilesSql(source.sql, ['day', 'channel_type', 'measure'])}) as q`,
      [...source.bindings],
    ),
    filtered(db, 'analytics_events', f).select(
      day,
      'channel_type',
      'event',
      'code',
      'count',
    ) as Promise<unknown>,
  ]);
  const timings = timingRows.rows;
  const events = eventsRaw as (Keyed & { event: string; code: string; count: number })[];
  // Each day and channel type's rows, grouped once.
  const groups = new Map<string, Keyed & { timings: typeof timings; events: typeof events }>();
  const groupOf = (r: Keyed) => {
    const key = `${r.day}/${r.channel_type}`;
    let group = groups.get(key);
    if (!group) {
      group = { day: r.day, channel_type: r.channel_type, timings: [], events: [] };
      groups.set(key, group);
    }
    return group;
  };
  for (const t of timings) groupOf(t).timings.push(t);
  for (const e of events) groupOf(e).events.push(e);
  return [...groups.values()]
    .sort((a, b) => a.day.localeCompare(b.day) || a.channel_type.localeCompare(b.channel_type))
    .map((g) => {
      const of = (measure: TimingMeasure) =>
        quantilesOf(g.timings.find((t) => t.measure === measure));
      const ended = (event: string) => g.events.find((e) => e.event === event)?.count ?? 0;
      const failures = g.events
        .filter((e) => e.event === 'send_failed')
        .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
      const bot = of('bot_response');
      const agent = of('agent_first_reply');
      return {
        day: g.day,
        channel_type: g.channel_type,
        bot_responses: bot.count,
        bot_response_median_ms: bot.median,
        bot_response_p90_ms: bot.p90,
        agent_first_replies: agent.count,
        agent_first_reply_median_ms: agent.median,
        agent_first_reply_p90_ms: agent.p90,
        handoffs_closed: ended(HANDOFF_ENDS.close),
        handoffs_returned: ended(HANDOFF_ENDS.return),
        handoffs_timed_out: ended(HANDOFF_ENDS.timeout),
        send_failures: failures.reduce((sum, e) => sum + e.count, 0),
        send_failures_by_code: failures.map((e) => `${e.code || 'none'}=${e.count}`).join(';'),
      };
    });
}

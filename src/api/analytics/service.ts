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
  quantiles,
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
  const [timingsRaw, eventsRaw] = (await Promise.all([
    filtered(db, 'analytics_timings', f)
      .select('measure', 'bucket', db.raw('sum(count)::int as count'))
      .groupBy('measure', 'bucket'),
    filtered(db, 'analytics_events', f)
      .select('event', 'code', db.raw('sum(count)::int as count'))
      .groupBy('event', 'code'),
  ])) as unknown[];
  const timings = timingsRaw as { measure: TimingMeasure; bucket: number; count: number }[];
  const events = eventsRaw as { event: string; code: string; count: number }[];
  const of = (measure: TimingMeasure) => quantiles(timings.filter((t) => t.measure === measure));
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

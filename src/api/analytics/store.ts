/**
 * A bot's analytics read from its rollups (docs/analytics.md; written by flow with each turn,
 * `src/flow/analytics/`): a handful of indexed reads over day rows, never a scan of transcripts.
 * Figures per day, channel type, language and flow version, the totals, the rates and each
 * state's entries, ways on, ends, handoffs and drop-off. Also the retention prune.
 */
import type { Knex } from '../../shared/db.ts';
import {
  BOT_COUNTERS,
  rateOf,
  STATE_COUNTERS,
  type BotCounters,
  type StateCounters,
} from '../../shared/analytics-counters.ts';
import { DAY_MS, dayOf } from '../../shared/utc-day.ts';
import { deleteInBatches } from '../retention-pruner.ts';
import { filtered, type AnalyticsFilter } from './filter.ts';
import { readService, type Service } from './service.ts';

/** One rollup row of the bot: a day, channel type, language and version with its counters. */
interface DayRow extends BotCounters {
  day: string;
  channel_type: string;
  language: string;
  flow_version: number;
}

interface StateRow extends StateCounters {
  state: string;
  /** Entered and neither gone on, ended nor handed off (in the range): gave up there, or still there. */
  abandoned: number;
}

interface Rates {
  /** Conversations that reached an end, of those started. */
  completion: number | null;
  /** Answers asked again or given up on, of the user messages handled. */
  did_not_understand: number | null;
  /** Handoffs started, of the conversations started. */
  handoff: number | null;
}

export interface Analytics {
  totals: BotCounters & {
    /**
     * Users (conversations) active in the range, each once; null for a range that ends before
     * today or with a language or version filter.
     */
    users: number | null;
    returning_users: number | null;
  };
  rates: Rates;
  by_day: (BotCounters & { day: string })[];
  by_channel: (BotCounters & { channel_type: string })[];
  by_language: (BotCounters & { language: string })[];
  by_version: (BotCounters & { flow_version: number })[];
  states: StateRow[];
  /** The service users got: null with a language or version filter (`service.ts`). */
  service: Service | null;
}

const zero = (): BotCounters => Object.fromEntries(BOT_COUNTERS.map((c) => [c, 0])) as BotCounters;

function add(into: BotCounters, row: BotCounters): void {
  for (const c of BOT_COUNTERS) into[c] += Number(row[c]);
}

/** The days from `from` to `to`, both included (`YYYY-MM-DD`). */
function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS)
    days.push(dayOf(t));
  return days;
}

/** The rollup rows, one per day, channel type, language and version (the CSV's rows). */
export async function dayRows(db: Knex, f: AnalyticsFilter): Promise<DayRow[]> {
  const rows: unknown = await filtered(db, 'analytics_days', f)
    .select(
      db.raw(`to_char(day, 'YYYY-MM-DD') as day`),
      'channel_type',
      'language',
      'flow_version',
      ...BOT_COUNTERS,
    )
    .orderBy(['day', 'channel_type', 'language', 'flow_version']);
  return rows as DayRow[];
}

/** Each state's counters over the filter, with its drop-off. */
export async function stateRows(db: Knex, f: AnalyticsFilter): Promise<StateRow[]> {
  const found: unknown = await filtered(db, 'analytics_state_days', f)
    .select('state', ...STATE_COUNTERS.map((c) => db.raw(`sum(??)::int as ??`, [c, c])))
    .groupBy('state')
    .orderBy('state');
  const rows = found as (StateCounters & { state: string })[];
  return rows.map((r) => ({
    ...r,
    abandoned: Math.max(0, r.entered - r.left_forward - r.ended - r.handoffs),
  }));
}

export async function readAnalytics(db: Knex, f: AnalyticsFilter): Promise<Analytics> {
  const [rows, states, users, service] = await Promise.all([
    dayRows(db, f),
    stateRows(db, f),
    usersSince(db, f),
    readService(db, f),
  ]);
  const totals = zero();
  const group = <K extends string | number>(key: (row: DayRow) => K): Map<K, BotCounters> => {
    const groups = new Map<K, BotCounters>();
    for (const row of rows) {
      const counters = groups.get(key(row)) ?? zero();
      add(counters, row);
      groups.set(key(row), counters);
    }
    return groups;
  };
  for (const row of rows) add(totals, row);
  const byDay = group((r) => r.day);
  return {
    totals: {
      ...totals,
      users,
      returning_users: users === null ? null : Math.max(0, users - totals.new_users),
    },
    rates: {
      completion: rateOf(totals.completed, totals.conversations),
      did_not_understand: rateOf(totals.reasks + totals.fallbacks, totals.messages_in),
      handoff: rateOf(totals.handoffs, totals.conversations),
    },
    by_day: daysOf(f.from, f.to).map((day) => ({ day, ...(byDay.get(day) ?? zero()) })),
    by_channel: [...group((r) => r.channel_type)].map(([channel_type, c]) => ({
      channel_type,
      ...c,
    })),
    by_language: [...group((r) => r.language)].map(([language, c]) => ({ language, ...c })),
    by_version: [...group((r) => r.flow_version)].map(([flow_version, c]) => ({
      flow_version,
      ...c,
    })),
    states,
    service,
  };
}

/**
 * Users (conversations) active in the range, each counted once: for a range ending today, those
 * whose latest day is in it (one count over an index); null for a range ending earlier (a user's
 * row keeps only their first and latest day) or with a language or version filter (which users'
 * rows do not carry).
 */
async function usersSince(db: Knex, f: AnalyticsFilter): Promise<number | null> {
  if (f.to < dayOf() || f.language !== undefined || f.version !== undefined) return null;
  const query = db('analytics_users').where('app_id', f.appId).andWhere('last_day', '>=', f.from);
  if (f.channelType !== undefined) query.andWhere('channel_type', f.channelType);
  const [row] = await query.count({ users: '*' });
  return Number(row?.users ?? 0);
}

/**
 * Deletes rollup days older than `retentionDays`, and users not seen since, in batches; answers
 * how many rows went.
 */
export async function pruneAnalytics(
  db: Knex,
  retentionDays: number,
  batch = 5000,
): Promise<number> {
  let deleted = 0;
  const tables: [table: string, day: string][] = [
    ['analytics_days', 'day'],
    ['analytics_state_days', 'day'],
    ['analytics_timings', 'day'],
    ['analytics_events', 'day'],
    ['analytics_users', 'last_day'],
  ];
  for (const [table, day] of tables) {
    deleted += await deleteInBatches(
      db,
      `delete from ?? where ctid in (
         select ctid from ?? where ?? < (now() at time zone 'utc')::date - ?::integer
         limit ? for update skip locked)`,
      [table, table, day, retentionDays],
      batch,
    );
  }
  return deleted;
}

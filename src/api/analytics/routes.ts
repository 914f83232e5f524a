/**
 * `GET /v2/bots/:app_id/analytics` (docs/analytics.md): a bot's figures over days, as JSON, or as
 * CSV for a spreadsheet (one row per day, channel type, language and version, per state, or per
 * day and channel type with the service figures).
 * Read from the rollups flow keeps as turns happen (`store.ts`); test chats are never in them.
 */
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import { stringify } from 'csv-stringify/sync';
import { BotwireError } from '../../shared/errors.ts';
import { DAY_MS, dayOf } from '../../shared/utc-day.ts';
import type { Edge } from '../edge.ts';
import { queryOf } from '../admin/paging.ts';
import { requireBotAccess } from '../admin/principal.ts';
import { BOT_COUNTERS, STATE_COUNTERS } from '../../shared/analytics-counters.ts';
import type { AnalyticsFilter } from './filter.ts';
import { dayRows, readAnalytics, stateRows } from './store.ts';
import { SERVICE_COLUMNS, serviceDayRows } from './service.ts';

type RouteContext = Context & { params: Record<string, string> };

/** `schemas/http/analytics-query.json`. */
interface AnalyticsQuery {
  from?: string;
  to?: string;
  channel_type?: string;
  language?: string;
  version?: string;
  format?: 'json' | 'csv';
  rows?: 'days' | 'states' | 'service';
}

/** The longest range one request may ask for, in days. */
const MAX_DAYS = 366;
/** The range when none is asked for: the last seven days, today included. */
const DEFAULT_DAYS = 7;

/** The range asked for, checked. @throws BW_ERR_SCHEMA for a day that is not one, or a bad range */
function rangeOf(
  query: Pick<AnalyticsQuery, 'from' | 'to'>,
  now = Date.now(),
): { from: string; to: string } {
  const parse = (day: string, name: string): number => {
    const t = Date.parse(`${day}T00:00:00Z`);
    if (Number.isNaN(t) || dayOf(t) !== day) {
      throw new BotwireError('BW_ERR_SCHEMA', `${name} is not a day: ${day}`, {
        details: { problems: [{ path: `/query/${name}`, message: 'is not a day' }] },
      });
    }
    return t;
  };
  const to = query.to === undefined ? Date.parse(`${dayOf(now)}T00:00:00Z`) : parse(query.to, 'to');
  const from =
    query.from === undefined ? to - (DEFAULT_DAYS - 1) * DAY_MS : parse(query.from, 'from');
  const days = (to - from) / DAY_MS + 1;
  if (days < 1 || days > MAX_DAYS) {
    throw new BotwireError(
      'BW_ERR_SCHEMA',
      `the range must run forward over 1 to ${MAX_DAYS} days; it has ${days}`,
      {
        details: {
          problems: [{ path: '/query/from', message: `1 to ${MAX_DAYS} days before to` }],
        },
      },
    );
  }
  return { from: dayOf(from), to: dayOf(to) };
}

const CSV_COLUMNS = {
  days: ['day', 'channel_type', 'language', 'flow_version', ...BOT_COUNTERS],
  states: ['state', ...STATE_COUNTERS, 'abandoned'],
  service: SERVICE_COLUMNS,
} as const;

/** The CSV's rows. @throws BW_ERR_SCHEMA for service rows with a language or version filter */
async function csvRows(
  edge: Edge,
  filter: AnalyticsFilter,
  rows: keyof typeof CSV_COLUMNS,
): Promise<object[]> {
  if (rows === 'states') return stateRows(edge.db, filter);
  if (rows === 'days') return dayRows(edge.db, filter);
  if (filter.language !== undefined || filter.version !== undefined) {
    throw new BotwireError(
      'BW_ERR_SCHEMA',
      'the service figures are not kept per language or flow version: ask rows=service without those filters',
      {
        details: { problems: [{ path: '/query/rows', message: 'no language or version filter' }] },
      },
    );
  }
  return serviceDayRows(edge.db, filter);
}

export function analyticsRoutes(
  router: Router,
  edge: Edge,
  appIdOf: (ctx: RouteContext) => string,
) {
  router.get('/v2/bots/:app_id/analytics', async (ctx) => {
    const appId = appIdOf(ctx);
    requireBotAccess(ctx, appId);
    const query = queryOf<AnalyticsQuery>(ctx, edge.schemas, 'http/analytics-query');
    if (!(await edge.directory.byAppId(appId)))
      throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
    const filter: AnalyticsFilter = {
      appId,
      ...rangeOf(query),
      channelType: query.channel_type,
      language: query.language,
      version: query.version === undefined ? undefined : Number(query.version),
    };
    if (query.format === 'csv') {
      const rows = query.rows ?? 'days';
      ctx.type = 'text/csv; charset=utf-8';
      ctx.attachment(`analytics-${appId}-${filter.from}-${filter.to}-${rows}.csv`);
      ctx.body = stringify(await csvRows(edge, filter, rows), {
        header: true,
        columns: [...CSV_COLUMNS[rows]],
      });
      return;
    }
    const { from, to, channelType, language, version } = filter;
    ctx.body = {
      app_id: appId,
      from,
      to,
      filters: {
        channel_type: channelType ?? null,
        language: language ?? null,
        version: version ?? null,
      },
      ...(await readAnalytics(edge.db, filter)),
    };
  });
}

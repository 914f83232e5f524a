/** A bot's analytics through the admin API (docs/analytics.md). */
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client.ts';
import type { paths } from './schema.d.ts';

export type AnalyticsQuery = NonNullable<
  paths['/v2/bots/{app_id}/analytics']['get']['parameters']['query']
>;
export type Analytics =
  paths['/v2/bots/{app_id}/analytics']['get']['responses'][200]['content']['application/json'];

/** `YYYY-MM-DD` of the day `days` before today (UTC): 0 is today. */
export function dayBefore(days: number, now = Date.now()): string {
  return new Date(now - days * 86_400_000).toISOString().slice(0, 10);
}

export function useAnalytics(appId: string, query: AnalyticsQuery, enabled = true) {
  return useQuery({
    queryKey: ['analytics', appId, query],
    // JSON: the query asks for no CSV.
    queryFn: async () =>
      unwrap(
        await api.GET('/v2/bots/{app_id}/analytics', {
          params: { path: { app_id: appId }, query },
        }),
      ) as Analytics,
    enabled,
  });
}

/** The CSV download of the same figures (the session cookie authenticates the link). */
export function analyticsCsvUrl(
  appId: string,
  query: AnalyticsQuery,
  rows: NonNullable<AnalyticsQuery['rows']>,
): string {
  const search = new URLSearchParams({
    ...Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)),
    format: 'csv',
    rows,
  });
  return `/v2/bots/${encodeURIComponent(appId)}/analytics?${search}`;
}

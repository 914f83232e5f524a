/** The range and filters of an analytics read (docs/analytics.md), and the rows they select. */
import type { Knex } from '../../shared/db.ts';

export interface AnalyticsFilter {
  appId: string;
  /** `YYYY-MM-DD`, UTC, both included. */
  from: string;
  to: string;
  channelType?: string | undefined;
  language?: string | undefined;
  version?: number | undefined;
}

/** The rows of `table` for the filter, as a query to add columns and grouping to. */
export function filtered(db: Knex, table: string, f: AnalyticsFilter): Knex.QueryBuilder {
  const query = db(table).where('app_id', f.appId).whereBetween('day', [f.from, f.to]);
  if (f.channelType !== undefined) query.andWhere('channel_type', f.channelType);
  if (f.language !== undefined) query.andWhere('language', f.language);
  if (f.version !== undefined) query.andWhere('flow_version', f.version);
  return query;
}

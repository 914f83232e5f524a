/** The audit log through the generated client: one page of `GET /v2/audit` with its filters. */
import { api, unwrap } from '../../api/client.ts';
import type { components } from '../../api/schema.d.ts';

export type AuditEntry = components['schemas']['audit-entry'];
export type AuditPage = components['schemas']['audit-page'];

/** The filters of the page, as they stand in the URL query (times as ISO strings). */
export interface AuditFilters {
  actor?: string;
  action?: string;
  app_id?: string;
  since?: string;
  until?: string;
}

export const FILTER_NAMES = ['actor', 'action', 'app_id', 'since', 'until'] as const;

export const auditKeys = {
  all: ['audit'] as const,
  filtered: (filters: AuditFilters) => ['audit', filters] as const,
};

/** One page, newest first; `after` is the `next_after` of the page before. */
export async function listAudit(filters: AuditFilters, after?: string): Promise<AuditPage> {
  return unwrap(
    await api.GET('/v2/audit', {
      params: { query: { ...filters, limit: 50, ...(after ? { after } : {}) } },
    }),
  );
}

/** The filters named in a URL query; empty values are left out. */
export function filtersFromSearch(search: URLSearchParams): AuditFilters {
  const filters: AuditFilters = {};
  for (const name of FILTER_NAMES) {
    const value = search.get(name);
    if (value) filters[name] = value;
  }
  return filters;
}

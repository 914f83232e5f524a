/**
 * The audit log (route `audit`): every change made through the admin API or this console, newest
 * first, in pages, filtered by actor, action, bot and time (kept in the URL query). Summaries are
 * shown as the server wrote them: secrets were removed before they were stored.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { useMemo, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { QueryState } from '../../components/query-state.tsx';
import {
  auditKeys,
  filtersFromSearch,
  listAudit,
  type AuditEntry,
  type AuditFilters,
} from './audit-api.ts';
import './audit.css';
import { LoadMore } from '../../components/load-more.tsx';

export function AuditPage() {
  const [search, setSearch] = useSearchParams();
  const filters = useMemo(() => filtersFromSearch(search), [search]);
  const log = useInfiniteQuery({
    queryKey: auditKeys.filtered(filters),
    queryFn: ({ pageParam }) => listAudit(filters, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_after ?? undefined,
  });
  const items = log.data?.pages.flatMap((page) => page.items) ?? [];
  const filtered = Object.keys(filters).length > 0;
  return (
    <div className="audit">
      <h1>Audit</h1>
      <p>Every change made through the admin API or the console: who, when, from where, what.</p>
      <FilterForm
        key={search.toString()}
        filters={filters}
        onApply={(next) =>
          setSearch(Object.fromEntries(Object.entries(next).filter(([, v]) => Boolean(v))))
        }
      />
      <QueryState
        query={log}
        failed="Could not load the audit log."
        empty={`No changes${filtered ? ' match these filters' : ' recorded yet'}.`}
        isEmpty={items.length === 0}
      />
      {items.length > 0 ? <AuditTable items={items} /> : null}
      <LoadMore query={log} label="Load older changes" />
    </div>
  );
}

/** `datetime-local` value (local time, no zone) to ISO, and back. */
const toIso = (local: string): string | undefined =>
  local === '' || Number.isNaN(Date.parse(local)) ? undefined : new Date(local).toISOString();
const toLocal = (iso: string | undefined): string => {
  if (!iso || Number.isNaN(Date.parse(iso))) return '';
  const at = new Date(iso);
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

function FilterForm({
  filters,
  onApply,
}: {
  filters: AuditFilters;
  onApply: (next: AuditFilters) => void;
}) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const field = (name: string): string => {
      const value = form.get(name);
      return typeof value === 'string' ? value.trim() : '';
    };
    const text = (name: string) => field(name) || undefined;
    const since = toIso(field('since'));
    const until = toIso(field('until'));
    const next: AuditFilters = {};
    const actor = text('actor');
    const action = text('action');
    const appId = text('app_id');
    if (actor) next.actor = actor;
    if (action) next.action = action;
    if (appId) next.app_id = appId;
    if (since) next.since = since;
    if (until) next.until = until;
    onApply(next);
  };
  return (
    <form className="audit__filters" onSubmit={submit} aria-label="Filters">
      <label>
        Actor
        <input name="actor" defaultValue={filters.actor ?? ''} placeholder="admin-key" />
      </label>
      <label>
        Action
        <input name="action" defaultValue={filters.action ?? ''} placeholder="bot.update" />
      </label>
      <label>
        Bot id
        <input name="app_id" defaultValue={filters.app_id ?? ''} />
      </label>
      <label>
        Since
        <input type="datetime-local" name="since" defaultValue={toLocal(filters.since)} />
      </label>
      <label>
        Until
        <input type="datetime-local" name="until" defaultValue={toLocal(filters.until)} />
      </label>
      <button type="submit">Apply filters</button>
    </form>
  );
}

/** A summary's before → after, one line per field. */
function Changes({ summary }: { summary: AuditEntry['summary'] }) {
  const before = summary.before ?? {};
  const after = summary.after ?? {};
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  if (fields.length === 0) return <>—</>;
  const show = (v: unknown) => (v === undefined ? '—' : JSON.stringify(v));
  return (
    <ul className="audit__changes">
      {fields.map((field) => (
        <li key={field}>
          <code>{field}</code>:{' '}
          {field in before ? `${show(before[field])} → ${show(after[field])}` : show(after[field])}
        </li>
      ))}
    </ul>
  );
}

function AuditTable({ items }: { items: AuditEntry[] }) {
  return (
    <table className="audit__table">
      <caption className="visually-hidden">Changes, newest first</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Actor</th>
          <th scope="col">Action</th>
          <th scope="col">Target</th>
          <th scope="col">Address</th>
          <th scope="col">Changes</th>
        </tr>
      </thead>
      <tbody>
        {items.map((row) => (
          <tr key={row.id}>
            <td>
              <time dateTime={row.at}>{new Date(row.at).toLocaleString()}</time>
            </td>
            <td>{row.actor}</td>
            <td>
              <code>{row.action}</code>
            </td>
            <td>
              {row.target_type}
              {row.target_id ? (
                <>
                  {' '}
                  <code>{row.target_id}</code>
                </>
              ) : null}
            </td>
            <td>{row.address}</td>
            <td>
              <Changes summary={row.summary} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

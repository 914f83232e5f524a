/**
 * The inbox (route `inbox`): the open handoffs of the bots the signed-in person may see, oldest
 * first (the one waiting longest on top), filtered by bot and queue (kept in the URL), with a
 * waiting time that ticks. Live: a `handoff` event (one began, was claimed, released or ended)
 * refreshes the list, so every agent of a bot sees the same queue without a reload.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { useMay } from '../../api/permissions.ts';
import { useMemo, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useMe } from '../../api/accounts.ts';
import { useBots } from '../../api/bots.ts';
import type { HandoffItem, HandoffQuery } from '../../api/types.ts';
import { QueryState } from '../../components/query-state.tsx';
import { LiveStatusLine } from '../conversations/live-status-line.tsx';
import { useEventSource } from '../conversations/use-event-source.ts';
import { useLiveRefresh } from '../conversations/use-live-refresh.ts';
import {
  durationText,
  personOf,
  readLiveHandoff,
  statusText,
  waitedSeconds,
} from './handoff-model.ts';
import { inboxEventsUrl, inboxKeys, listHandoffs } from './inbox-api.ts';
import { useNow } from './use-now.ts';
import '../conversations/conversations.css';
import './inbox.css';
import { LoadMore } from '../../components/load-more.tsx';

/** Least time between two refreshes of the list caused by live events (ms). */
const LIVE_REFRESH_MS = 500;

function filtersOf(search: URLSearchParams): HandoffQuery {
  const filters: HandoffQuery = {};
  const bot = search.get('bot');
  const queue = search.get('queue');
  if (bot) filters.app_id = bot;
  if (queue) filters.queue = queue;
  return filters;
}

export function InboxPage() {
  const [search, setSearch] = useSearchParams();
  const filters = useMemo(() => filtersOf(search), [search]);
  const me = useMe();
  const may = useMay();
  const bots = useBots();
  const now = useNow();

  const handoffs = useInfiniteQuery({
    queryKey: inboxKeys.list(filters),
    queryFn: ({ pageParam }) => listHandoffs(filters, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_after ?? undefined,
  });

  const refresh = useLiveRefresh([inboxKeys.all], LIVE_REFRESH_MS);
  const live = useEventSource(
    inboxEventsUrl('handoff', filters.app_id),
    {
      handoff: (data) => {
        if (readLiveHandoff(data)) refresh();
      },
      reset: refresh,
    },
    { withCredentials: true },
  );

  const botNames = new Map((bots.data?.items ?? []).map((b) => [b.app_id, b.name]));
  const items = handoffs.data?.pages.flatMap((page) => page.items) ?? [];
  const filtered = filters.app_id !== undefined || filters.queue !== undefined;
  return (
    <div className="inbox">
      <h1>Inbox</h1>
      <p className="hint">
        Conversations the bot handed to a person, the one waiting longest first.
        {me.data && !may('POST /v2/handoffs/:id/claim')
          ? ' You can read them; owners and agents answer.'
          : ''}
      </p>
      <FilterForm
        key={search.toString()}
        filters={filters}
        bots={bots.data?.items ?? []}
        onApply={(next) => {
          const params = new URLSearchParams();
          if (next.app_id) params.set('bot', next.app_id);
          if (next.queue) params.set('queue', next.queue);
          setSearch(params);
        }}
      />
      <LiveStatusLine live={live} />
      <QueryState
        query={handoffs}
        failed="Could not load the inbox."
        onRetry={() => void handoffs.refetch()}
        empty={`Nobody is waiting${filtered ? ' in this view' : ''}.`}
        isEmpty={items.length === 0}
      />
      {items.length > 0 ? (
        <table className="inbox__table">
          <caption className="visually-hidden">Open handoffs, waiting longest first</caption>
          <thead>
            <tr>
              <th scope="col">Person</th>
              <th scope="col">Waiting</th>
              <th scope="col">Status</th>
              <th scope="col">Bot</th>
              <th scope="col">Queue</th>
              <th scope="col">Channel</th>
            </tr>
          </thead>
          <tbody>
            {items.map((h) => (
              <HandoffRow
                key={h.id}
                handoff={h}
                bot={botNames.get(h.app_id) ?? h.app_id}
                waited={waitedSeconds(h, handoffs.dataUpdatedAt, now)}
                status={statusText(h, me.data)}
              />
            ))}
          </tbody>
        </table>
      ) : null}
      <LoadMore query={handoffs} label="Load more" />
    </div>
  );
}

function HandoffRow(props: { handoff: HandoffItem; bot: string; waited: number; status: string }) {
  const { handoff, bot, waited, status } = props;
  return (
    <tr className={`inbox__row inbox__row--${handoff.status}`}>
      <td>
        <Link to={`/inbox/${handoff.id}`}>{personOf(handoff)}</Link>
      </td>
      <td>
        {handoff.status === 'waiting' ? durationText(waited) : `${durationText(waited)} (claimed)`}
      </td>
      <td>{status}</td>
      <td>{bot}</td>
      <td>{handoff.queue ?? '—'}</td>
      <td>{handoff.channel_type ?? '—'}</td>
    </tr>
  );
}

/** Bot and queue, applied on submit (the queue is typed). */
function FilterForm(props: {
  filters: HandoffQuery;
  bots: { app_id: string; name: string }[];
  onApply: (filters: HandoffQuery) => void;
}) {
  const { filters, bots, onApply } = props;
  const [draft, setDraft] = useState<HandoffQuery>(filters);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(draft);
  };
  return (
    <form role="search" aria-label="Filter the inbox" className="filters" onSubmit={submit}>
      <label>
        Bot
        <select
          value={draft.app_id ?? ''}
          onChange={(e) => setDraft((d) => ({ ...d, app_id: e.target.value || undefined }))}
        >
          <option value="">Any</option>
          {bots.map((b) => (
            <option key={b.app_id} value={b.app_id}>
              {b.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Queue
        <input
          value={draft.queue ?? ''}
          onChange={(e) => setDraft((d) => ({ ...d, queue: e.target.value || undefined }))}
        />
      </label>
      <div className="filters__actions">
        <button type="submit">Apply</button>
        <button type="button" onClick={() => onApply({})}>
          Clear
        </button>
      </div>
    </form>
  );
}

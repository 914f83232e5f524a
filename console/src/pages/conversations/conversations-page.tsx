/**
 * A bot's conversations (route `bots/:appId/conversations`): newest activity first, in pages,
 * filtered by channel, days and words (kept in the URL query), and live: a `message` or
 * `conversation` event of this bot refreshes the list, so new conversations and messages appear
 * without a reload.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { errorText } from '../../api/api-error.ts';
import type { ConversationSummary } from '../../api/types.ts';
import {
  filtersFromSearch,
  filtersProblem,
  filtersToSearch,
  type ConversationFilters,
} from './conversation-filters.ts';
import { conversationEventsUrl, conversationKeys, listConversations } from './conversations-api.ts';
import { readLiveConversation, readLiveMessage } from './live-events.ts';
import { LiveStatusLine } from './live-status-line.tsx';
import { useEventSource } from './use-event-source.ts';
import { useLiveRefresh } from './use-live-refresh.ts';
import './conversations.css';
import { LoadMore } from '../../components/load-more.tsx';
import { useMay } from '../../api/permissions.ts';
import { BotName } from '../../components/bot-name.tsx';

/** Least time between two refreshes of the list caused by live events (ms). */
const LIVE_REFRESH_MS = 1000;

/** The channel filter: users' channels; test chats only when picked (the API leaves them out). */
const CHANNELS: [value: string, label: string][] = [
  ['telegram', 'telegram'],
  ['whatsapp', 'whatsapp'],
  ['web', 'web'],
  ['console', 'test chats'],
];

export function ConversationsPage() {
  const { appId = '' } = useParams();
  const [search, setSearch] = useSearchParams();
  const may = useMay();
  const filters = useMemo(() => filtersFromSearch(search), [search]);
  const problem = filtersProblem(filters);

  const conversations = useInfiniteQuery({
    queryKey: conversationKeys.filtered(appId, filters),
    queryFn: ({ pageParam }) => listConversations(appId, filters, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_after ?? undefined,
    enabled: appId !== '' && problem === undefined,
  });

  const refresh = useLiveRefresh([conversationKeys.list(appId)], LIVE_REFRESH_MS);
  // The stream is asked for this bot's events only; checked again here, so that a server which
  // ignores `app_id` costs refreshes, never wrong rows.
  const ofThisBot = (data: unknown) => {
    if ((readLiveMessage(data) ?? readLiveConversation(data))?.app_id === appId) refresh();
  };
  const live = useEventSource(
    appId === '' ? null : conversationEventsUrl(appId),
    { message: ofThisBot, conversation: ofThisBot, reset: refresh },
    { withCredentials: true },
  );

  const items = conversations.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <div className="conversations">
      <h1>Conversations</h1>
      <p className="conversations__bot">
        <BotName appId={appId} />
        {may('POST /v2/bots/:app_id/test-chats') && (
          <span data-route="POST /v2/bots/:app_id/test-chats">
            {' '}
            · <Link to={`/bots/${appId}/chat`}>Test chat</Link>
          </span>
        )}
      </p>
      <FilterForm
        key={search.toString()}
        filters={filters}
        onApply={(next) => setSearch(filtersToSearch(next))}
      />
      <LiveStatusLine live={live} />
      {problem ? <p role="alert">{problem}</p> : null}
      {conversations.isError ? (
        <div role="alert" className="conversations__error">
          Could not load the conversations: {errorText(conversations.error)}{' '}
          <button type="button" onClick={() => void conversations.refetch()}>
            Try again
          </button>
        </div>
      ) : null}
      {conversations.isPending && problem === undefined ? <p role="status">Loading…</p> : null}
      {conversations.isSuccess && items.length === 0 ? (
        <p>No conversations{Object.keys(filters).length > 0 ? ' match these filters' : ' yet'}.</p>
      ) : null}
      {items.length > 0 ? <ConversationTable items={items} /> : null}
      <LoadMore query={conversations} label="Load older conversations" />
    </div>
  );
}

function personOf(c: ConversationSummary): string {
  const name = [c.first_name, c.last_name].filter(Boolean).join(' ');
  return name || c.chat_id;
}

function ConversationTable({ items }: { items: ConversationSummary[] }) {
  return (
    <table className="conversations__table">
      <caption className="visually-hidden">Conversations, newest activity first</caption>
      <thead>
        <tr>
          <th scope="col">Last message</th>
          <th scope="col">Person</th>
          <th scope="col">Channel</th>
          <th scope="col">Flow state</th>
          <th scope="col">Latest words</th>
        </tr>
      </thead>
      <tbody>
        {items.map((c) => (
          <tr key={c.id}>
            <td>
              <Link to={`/conversations/${c.id}`}>
                <time dateTime={c.last_message_at}>
                  {new Date(c.last_message_at).toLocaleString()}
                </time>
              </Link>
            </td>
            <td>{personOf(c)}</td>
            <td>{c.channel_type ?? '—'}</td>
            <td>{c.state ? <code>{c.state}</code> : '—'}</td>
            <td className="conversations__preview">{c.last_message_preview ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The filters as a form; applied on submit, so typing does not fetch a page per key. */
function FilterForm({
  filters,
  onApply,
}: {
  filters: ConversationFilters;
  onApply: (filters: ConversationFilters) => void;
}) {
  const [draft, setDraft] = useState<ConversationFilters>(filters);
  const set = (field: keyof ConversationFilters) => (value: string) =>
    setDraft((d) => ({ ...d, [field]: value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(draft);
  };
  return (
    <form role="search" aria-label="Filter conversations" className="filters" onSubmit={submit}>
      <label>
        Channel
        <select
          value={draft.channelType ?? ''}
          onChange={(e) => set('channelType')(e.target.value)}
        >
          <option value="">Any (not test chats)</option>
          {CHANNELS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        From
        <input type="date" value={draft.from ?? ''} onChange={(e) => set('from')(e.target.value)} />
      </label>
      <label>
        To
        <input type="date" value={draft.to ?? ''} onChange={(e) => set('to')(e.target.value)} />
      </label>
      <label>
        Words
        <input
          type="search"
          value={draft.q ?? ''}
          onChange={(e) => set('q')(e.target.value)}
          placeholder="in the messages"
        />
      </label>
      <label>
        Chat id
        <input value={draft.chatId ?? ''} onChange={(e) => set('chatId')(e.target.value)} />
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

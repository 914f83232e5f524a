/**
 * One conversation (route `conversations/:id`): who, where, its flow state and variables, and the
 * transcript with both sides as the person saw them, the flow's notes set apart; owners and
 * builders may write to the user (the bot writing first). Live: a
 * `message` event of this conversation fetches the new rows, a `conversation` event shows the
 * new state.
 */
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { errorText } from '../../api/api-error.ts';
import type { ConversationDetail } from '../../api/types.ts';
import {
  conversationEventsUrl,
  conversationKeys,
  getConversation,
  listMessages,
} from './conversations-api.ts';
import { readLiveConversation, readLiveMessage, withLiveState } from './live-events.ts';
import { LiveStatusLine } from './live-status-line.tsx';
import { fromTranscriptRow, withChoiceTitles } from './message-model.ts';
import { MessageView } from './message-view.tsx';
import { VariablesView } from './variables-view.tsx';
import { WriteFirstForm } from './write-first-form.tsx';
import { useMay } from '../../api/permissions.ts';
import { useEventSource } from './use-event-source.ts';
import { useLiveRefresh } from './use-live-refresh.ts';
import './conversations.css';
import { LoadMore } from '../../components/load-more.tsx';

/** Least time between two transcript refreshes caused by live events (ms). */
const LIVE_REFRESH_MS = 500;

export function ConversationPage() {
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const may = useMay();
  const detail = useQuery({
    queryKey: conversationKeys.detail(id),
    queryFn: () => getConversation(id),
    enabled: id !== '',
  });
  const messages = useInfiniteQuery({
    queryKey: conversationKeys.messages(id),
    queryFn: ({ pageParam }) => listMessages(id, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_after ?? undefined,
    enabled: id !== '',
  });

  const refresh = useLiveRefresh(
    [conversationKeys.messages(id), conversationKeys.detail(id)],
    LIVE_REFRESH_MS,
  );
  const appId = detail.data?.app_id;
  const live = useEventSource(
    appId ? conversationEventsUrl(appId) : null,
    {
      message: (data) => {
        if (readLiveMessage(data)?.conversation_id === id) refresh();
      },
      conversation: (data) => {
        const event = readLiveConversation(data);
        if (event?.conversation_id !== id) return;
        queryClient.setQueryData<ConversationDetail>(conversationKeys.detail(id), (old) =>
          old ? withLiveState(old, event) : old,
        );
        refresh();
      },
      reset: refresh,
    },
    { withCredentials: true },
  );

  const rows = messages.data?.pages.flatMap((page) => page.items) ?? [];
  const shown = withChoiceTitles(rows.map(fromTranscriptRow));
  const conversation = detail.data;
  return (
    <div className="conversation">
      <h1>
        Conversation
        {conversation
          ? ` with ${[conversation.first_name, conversation.last_name].filter(Boolean).join(' ') || conversation.chat_id}`
          : ''}
      </h1>
      {conversation ? (
        <p>
          <Link to={`/bots/${conversation.app_id}/conversations`}>
            All conversations of this bot
          </Link>
        </p>
      ) : null}
      <LiveStatusLine live={live} quiet={!appId} />
      {detail.isError ? (
        <div role="alert">
          Could not load the conversation: {errorText(detail.error)}{' '}
          <button type="button" onClick={() => void detail.refetch()}>
            Try again
          </button>
        </div>
      ) : null}
      {conversation ? (
        <section aria-labelledby="conversation-about" className="conversation__about">
          <h2 id="conversation-about">About</h2>
          <dl>
            <dt>Channel</dt>
            <dd>{conversation.channel_type}</dd>
            <dt>Chat id</dt>
            <dd>
              <code>{conversation.chat_id}</code>
            </dd>
            <dt>Flow state</dt>
            <dd>{conversation.state ? <code>{conversation.state}</code> : 'none'}</dd>
            <dt>Started</dt>
            <dd>{new Date(conversation.created_at).toLocaleString()}</dd>
            <dt>Last message</dt>
            <dd>{new Date(conversation.last_message_at).toLocaleString()}</dd>
          </dl>
          <h3>Variables</h3>
          <VariablesView variables={conversation.variables} />
        </section>
      ) : null}
      <section aria-labelledby="conversation-transcript" className="conversation__transcript">
        <h2 id="conversation-transcript">Transcript</h2>
        {messages.isError ? (
          <div role="alert">
            Could not load the messages: {errorText(messages.error)}{' '}
            <button type="button" onClick={() => void messages.refetch()}>
              Try again
            </button>
          </div>
        ) : null}
        {messages.isPending && id !== '' ? <p role="status">Loading…</p> : null}
        {messages.isSuccess && rows.length === 0 ? <p>No messages yet.</p> : null}
        <div role="log" aria-label="Transcript">
          <ol className="messages">
            {shown.map((message) => (
              <MessageView key={message.key} message={message} />
            ))}
          </ol>
        </div>
        <LoadMore query={messages} label="Load later messages" />
      </section>
      {conversation && may('POST /v2/bots/:app_id/messages') ? (
        <WriteFirstForm
          appId={conversation.app_id}
          conversationId={conversation.id}
          channelId={conversation.channel_id ?? ''}
          channelType={conversation.channel_type}
        />
      ) : null}
    </div>
  );
}

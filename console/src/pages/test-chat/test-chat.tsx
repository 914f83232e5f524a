/**
 * The test chat: an operator tries a bot through the whole pipeline (the same components as every
 * platform, on the bot's console channel), whatever its channels, wherever the console is opened.
 * It runs the draft (a fresh conversation whenever the draft is saved anew) or the published
 * version, as the operator picks; the live version is untouched until publish. Usable alone
 * (`TestChatPage`) or as a panel beside the flow editor: `<TestChat appId={appId} />`. Buttons and
 * list rows can be pressed; the conversation's flow state and variables are shown after every
 * reply, with what the flow understood by meaning and the LLM calls it made (the transcript's
 * notes); Restart starts a new conversation from the flow's start.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useReducer, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { errorText } from '../../api/api-error.ts';
import { readAgain } from '../../api/read-again.ts';
import type { TestChatSource } from '../../api/types.ts';
import {
  conversationKeys,
  getConversation,
  listMessages,
} from '../conversations/conversations-api.ts';
import { LiveStatusLine } from '../conversations/live-status-line.tsx';
import { readWebEvent } from '../conversations/message-model.ts';
import { MessageView, type Choice } from '../conversations/message-view.tsx';
import { useEventSource } from '../conversations/use-event-source.ts';
import { VariablesView } from '../conversations/variables-view.tsx';
import { getBotFlow } from '../flow-editor/flow-api.ts';
import { chatLogReducer } from './chat-log.ts';
import { useMay } from '../../api/permissions.ts';
import { SaveAsTest } from '../conversation-tests/save-as-test.tsx';
import { traceLine, turnTrace, turnViews } from './turn-trace.ts';
import { newClientMessageId, readChat, writeChat, type StoredChat } from './chat-session.ts';
import {
  sendMessage,
  startTestChat,
  testChatEventsUrl,
  type ChatInput,
  type Wanted,
} from './test-chat-api.ts';
import './test-chat.css';

const chatKey = (appId: string, wanted: Wanted, revision: number | undefined) =>
  ['test-chat', appId, wanted, revision ?? null] as const;

/** The stored chat for this flow (and draft revision), else a new one. */
async function obtainChat(appId: string, wanted: Wanted, revision?: number): Promise<StoredChat> {
  const stored = readChat(sessionStorage, appId, wanted, revision);
  if (stored) return stored;
  return newChat(appId, wanted);
}

async function newChat(appId: string, wanted: Wanted): Promise<StoredChat> {
  const made = await startTestChat(appId, wanted);
  const chat = { chat_id: made.chat_id, source: made.source, conversation_id: null };
  writeChat(sessionStorage, appId, wanted, chat);
  return chat;
}

function sourceText(source: TestChatSource): string {
  return 'draft' in source
    ? `the draft (saved revision ${source.draft})`
    : `version ${source.version}`;
}

export interface TestChatProps {
  appId: string;
}

export function TestChat({ appId }: TestChatProps) {
  const queryClient = useQueryClient();
  const titleId = useId();
  const pickId = useId();
  // The flow editor refreshes this query on every save and publish: a new draft revision here
  // starts a new conversation.
  const flow = useQuery({ queryKey: ['bot-flow', appId], queryFn: () => getBotFlow(appId) });
  const hasDraft = Boolean(flow.data?.draft);
  const [picked, setPicked] = useState<'draft' | 'current'>('draft');
  const wanted: Wanted = picked === 'draft' && hasDraft ? 'draft' : 'current';
  // What the chat must have started on: the draft's revision, or the published version.
  const revision =
    wanted === 'draft' ? flow.data?.draft?.revision : (flow.data?.published?.version ?? undefined);
  const key = chatKey(appId, wanted, revision);
  const chat = useQuery({
    queryKey: key,
    queryFn: () => obtainChat(appId, wanted, revision),
    enabled: flow.isSuccess,
    staleTime: Infinity,
    retry: false,
  });
  const restart = useMutation({
    mutationFn: () => newChat(appId, wanted),
    onSuccess: (fresh) => queryClient.setQueryData(key, fresh),
  });
  const problem = chat.error ?? flow.error;

  return (
    <section className="test-chat" aria-labelledby={titleId}>
      <header className="test-chat__header">
        <h2 id={titleId}>Test chat</h2>
        <span className="test-chat__pick">
          <label htmlFor={pickId}>Try</label>
          <select
            id={pickId}
            value={wanted === 'draft' ? 'draft' : 'current'}
            onChange={(e) => setPicked(e.target.value as 'draft' | 'current')}
          >
            <option value="draft" disabled={!hasDraft}>
              {hasDraft ? 'Draft' : 'Draft (none saved)'}
            </option>
            <option value="current">
              {flow.data?.published
                ? `Published (version ${flow.data.published.version})`
                : 'Published'}
            </option>
          </select>
        </span>
        <button
          type="button"
          onClick={() => restart.mutate()}
          disabled={restart.isPending || !flow.isSuccess}
          title="A new conversation from the flow's start"
        >
          {restart.isPending ? 'Restarting…' : 'Restart'}
        </button>
      </header>
      {problem ? (
        <div role="alert">
          Could not start a test chat: {errorText(problem)}{' '}
          <button
            type="button"
            onClick={() => void (chat.isError ? chat.refetch() : flow.refetch())}
          >
            Try again
          </button>
        </div>
      ) : null}
      {restart.isError ? (
        <div role="alert">Could not restart: {errorText(restart.error)}</div>
      ) : null}
      {chat.isPending && !problem ? <p role="status">Starting a test chat…</p> : null}
      {chat.data ? (
        <>
          <p className="test-chat__source muted">
            Running {sourceText(chat.data.source)}. Nobody else sees this conversation; the live bot
            is unchanged.
          </p>
          <ChatBody key={chat.data.chat_id} appId={appId} wanted={wanted} chat={chat.data} />
        </>
      ) : null}
    </section>
  );
}

/** How often the chat reads its conversation's state besides after each reply (ms). */
const STATE_REFRESH_MS = 3000;

function ChatBody({ appId, wanted, chat }: { appId: string; wanted: Wanted; chat: StoredChat }) {
  const queryClient = useQueryClient();
  const may = useMay();
  const [log, dispatch] = useReducer(chatLogReducer, []);
  const [conversationId, setConversationId] = useState(chat.conversation_id);
  const [draft, setDraft] = useState('');
  const end = useRef<HTMLLIElement>(null);
  const ids = useId();

  const live = useEventSource(testChatEventsUrl(appId, chat.chat_id), {
    message: (data) => {
      const event = readWebEvent(data);
      if (!event) return;
      dispatch({ type: 'event', event });
      if (event.conversation_id && event.conversation_id !== conversationId) {
        setConversationId(event.conversation_id);
        writeChat(sessionStorage, appId, wanted, {
          ...chat,
          conversation_id: event.conversation_id,
        });
      }
      // A reply ends (part of) a turn: the flow has stored the state it moved to.
      if (event.direction === 'out' && event.conversation_id) {
        void readAgain(queryClient, conversationKeys.detail(event.conversation_id));
        void readAgain(queryClient, conversationKeys.messages(event.conversation_id));
      }
    },
  });

  const state = useQuery({
    queryKey: conversationKeys.detail(conversationId ?? ''),
    queryFn: () => getConversation(conversationId!),
    enabled: conversationId !== null,
    // Also read now and then: a state can change with no reply to say so (a handoff ended, a
    // timeout), and a reply read before its state's refresh must not leave the line behind.
    // Not once it ended: only a new message moves it then, and that refreshes it.
    refetchInterval: (query) => (query.state.data?.state ? STATE_REFRESH_MS : false),
  });

  // The test chat's conversations are short: the first page of the transcript holds them.
  const notes = useQuery({
    queryKey: conversationKeys.messages(conversationId ?? ''),
    queryFn: () => listMessages(conversationId!),
    enabled: conversationId !== null,
  });
  const trace = turnTrace(notes.data?.items ?? []);
  const turns = turnViews(notes.data?.items ?? []);

  const send = useMutation({
    mutationFn: (v: { id: string; input: ChatInput; text?: string; choice?: Choice }) =>
      sendMessage(appId, chat.chat_id, v.id, v.input),
    onMutate: (v) =>
      dispatch({
        type: 'sent',
        clientMessageId: v.id,
        createdAt: new Date().toISOString(),
        ...(v.text !== undefined ? { text: v.text } : {}),
        ...(v.choice ? { choice: { id: v.choice.id, title: v.choice.title } } : {}),
      }),
    onError: (error, v) =>
      dispatch({ type: 'failed', clientMessageId: v.id, error: errorText(error) }),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = draft.trim();
    if (text === '') return;
    send.mutate({ id: newClientMessageId(), input: { text }, text });
    setDraft('');
  };
  const choose = (choice: Choice) =>
    send.mutate({
      id: newClientMessageId(),
      input: choice.kind === 'button' ? { button_id: choice.id } : { list_row_id: choice.id },
      choice,
    });

  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'nearest' });
  }, [log.length]);

  return (
    <div className="test-chat__body">
      <LiveStatusLine live={live} className="test-chat__live" />
      <div className="test-chat__log" role="log" aria-label="Test conversation">
        {log.length === 0 ? <p className="test-chat__empty">Say hello to start the flow.</p> : null}
        <ol className="messages">
          {log.map((message) => (
            <MessageView key={message.key} message={message} onChoose={choose} userLabel="You" />
          ))}
          <li ref={end} aria-hidden="true" className="test-chat__end" />
        </ol>
      </div>
      <form className="test-chat__composer" onSubmit={submit}>
        <label htmlFor={`${ids}-input`}>Message</label>
        <input
          id={`${ids}-input`}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          autoComplete="off"
          maxLength={4096}
        />
        <button type="submit" disabled={draft.trim() === ''}>
          Send
        </button>
      </form>
      {may('POST /v2/bots/:app_id/tests/from-chat') && log.length > 0 && (
        <SaveAsTest appId={appId} chatId={chat.chat_id} />
      )}
      <section className="test-chat__state" aria-labelledby={`${ids}-state`}>
        <h3 id={`${ids}-state`}>Flow state</h3>
        {conversationId === null ? (
          <p>No conversation yet: it starts with the first message.</p>
        ) : (
          <p>
            <Link to={`/conversations/${conversationId}`}>Open its transcript</Link>
          </p>
        )}
        {state.isError ? (
          <div role="alert">Could not read the flow state: {errorText(state.error)}</div>
        ) : null}
        {state.data ? (
          <>
            <p>
              State: {state.data.state ? <code>{state.data.state}</code> : 'none (ended or reset)'}
              {state.isFetching ? (
                <span className="test-chat__refreshing"> (refreshing…)</span>
              ) : null}
            </p>
            <h4>Variables</h4>
            <VariablesView variables={state.data.variables} />
          </>
        ) : null}
        <h4 id={`${ids}-trace`}>Understood and asked</h4>
        {trace.length === 0 ? (
          <p className="muted">Nothing matched by meaning, no LLM call yet.</p>
        ) : (
          <ol aria-labelledby={`${ids}-trace`}>
            {trace.map((item) => (
              <li key={item.key}>{traceLine(item)}</li>
            ))}
          </ol>
        )}
        <h4 id={`${ids}-turns`}>Turn trace</h4>
        {turns.length === 0 ? (
          <p className="muted">No turn yet.</p>
        ) : (
          <ol aria-labelledby={`${ids}-turns`} className="test-chat__turns">
            {turns.map((turn) => (
              <li key={turn.key}>
                <strong>{turn.began}</strong>
                <ul>
                  {turn.lines.map((line, n) => (
                    <li key={n}>{line}</li>
                  ))}
                </ul>
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  );
}

/**
 * The test chat: talks to a bot through its web channel as a visitor would, so an operator tries
 * a flow end to end (same pipeline as every platform). Usable alone (`TestChatPage`) or as a panel
 * beside the flow editor: `<TestChat appId={appId} />`. Buttons and list rows can be pressed; the
 * conversation's flow state and variables are shown after every reply, with what the flow
 * understood by meaning and the LLM calls it made (the transcript's notes); Reset starts over as
 * a new visitor.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useReducer, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiError, errorText } from '../../api/api-error.ts';
import type { WebSession } from '../../api/types.ts';
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
import { chatLogReducer } from './chat-log.ts';
import { traceLine, turnTrace } from './turn-trace.ts';
import { needsRenewal, newClientMessageId, readSession, writeSession } from './chat-session.ts';
import {
  createSession,
  sendMessage,
  visitorEventsUrl,
  type VisitorInput,
} from './test-chat-api.ts';
import './test-chat.css';

const sessionKey = (appId: string) => ['test-chat-session', appId] as const;

/** The stored session, renewed when near its end; a new visitor when none or renewal is refused. */
async function obtainSession(appId: string): Promise<WebSession> {
  const stored = readSession(sessionStorage, appId);
  if (stored && !needsRenewal(stored, new Date())) return stored;
  let session: WebSession;
  try {
    session = await createSession(appId, stored?.token);
  } catch (error) {
    // A token the server no longer takes (expired, key changed): start as a new visitor.
    if (!stored || !(error instanceof ApiError) || error.status < 400 || error.status >= 500) {
      throw error;
    }
    session = await createSession(appId);
  }
  writeSession(sessionStorage, appId, session);
  return session;
}

export interface TestChatProps {
  appId: string;
}

export function TestChat({ appId }: TestChatProps) {
  const queryClient = useQueryClient();
  const titleId = useId();
  const session = useQuery({
    queryKey: sessionKey(appId),
    queryFn: () => obtainSession(appId),
    staleTime: Infinity,
  });
  const reset = useMutation({
    mutationFn: () => createSession(appId),
    onSuccess: (fresh) => {
      writeSession(sessionStorage, appId, fresh);
      queryClient.setQueryData(sessionKey(appId), fresh);
    },
  });

  return (
    <section className="test-chat" aria-labelledby={titleId}>
      <header className="test-chat__header">
        <h2 id={titleId}>Chat as a web visitor</h2>
        <button
          type="button"
          onClick={() => reset.mutate()}
          disabled={reset.isPending}
          title="Start over as a new visitor: a new conversation from the flow's start"
        >
          {reset.isPending ? 'Resetting…' : 'Reset'}
        </button>
      </header>
      {session.isError ? (
        <div role="alert">
          Could not start a web visitor session: {errorText(session.error)}
          {session.error instanceof ApiError && session.error.status === 404
            ? ' (the test chat talks through the bot’s web channel: add one to the bot)'
            : ''}{' '}
          <button type="button" onClick={() => void session.refetch()}>
            Try again
          </button>
        </div>
      ) : null}
      {reset.isError ? <div role="alert">Could not reset: {errorText(reset.error)}</div> : null}
      {session.isPending ? <p role="status">Starting a session…</p> : null}
      {session.data ? (
        <ChatBody key={session.data.visitor_id} appId={appId} session={session.data} />
      ) : null}
    </section>
  );
}

function ChatBody({ appId, session }: { appId: string; session: WebSession }) {
  const queryClient = useQueryClient();
  const [log, dispatch] = useReducer(chatLogReducer, []);
  const [conversationId, setConversationId] = useState(session.conversation_id);
  const [draft, setDraft] = useState('');
  const end = useRef<HTMLLIElement>(null);
  const ids = useId();

  const live = useEventSource(
    visitorEventsUrl(appId, session.token),
    {
      message: (data) => {
        const event = readWebEvent(data);
        if (!event) return;
        dispatch({ type: 'event', event });
        if (event.conversation_id && event.conversation_id !== conversationId) {
          setConversationId(event.conversation_id);
          writeSession(sessionStorage, appId, {
            ...session,
            conversation_id: event.conversation_id,
          });
        }
        // A reply ends (part of) a turn: the flow has stored the state it moved to.
        if (event.direction === 'out' && event.conversation_id) {
          void queryClient.invalidateQueries({
            queryKey: conversationKeys.detail(event.conversation_id),
          });
          void queryClient.invalidateQueries({
            queryKey: conversationKeys.messages(event.conversation_id),
          });
        }
      },
    },
    {
      // A stream refused for an old token: renew it (same visitor); the new token reconnects.
      onClosed: () => {
        if (needsRenewal(session, new Date())) {
          void queryClient.invalidateQueries({ queryKey: sessionKey(appId) });
        }
      },
    },
  );

  const state = useQuery({
    queryKey: conversationKeys.detail(conversationId ?? ''),
    queryFn: () => getConversation(conversationId!),
    enabled: conversationId !== null,
  });

  // The test chat's conversations are short: the first page of the transcript holds them.
  const notes = useQuery({
    queryKey: conversationKeys.messages(conversationId ?? ''),
    queryFn: () => listMessages(conversationId!),
    enabled: conversationId !== null,
  });
  const trace = turnTrace(notes.data?.items ?? []);

  const send = useMutation({
    mutationFn: (v: { id: string; input: VisitorInput; text?: string; choice?: Choice }) =>
      sendMessage(appId, session.token, v.id, v.input),
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
      </section>
    </div>
  );
}

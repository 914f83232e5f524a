/**
 * One handoff (route `inbox/:id`): who and where, its status, the transcript (what led to it and
 * everything since, the user's messages while waiting included, internal notes set apart), the
 * flow variables, and what an agent does with it: claim or release, reply (with the typing
 * indicator), write notes, hand back at a state, close. Builders and viewers read it only.
 * Live: a `handoff` event of it (a claim by someone else, its end) and a `message` event of its
 * conversation refetch it.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, useParams } from 'react-router';
import { useMay } from '../../api/permissions.ts';
import { useMe } from '../../api/accounts.ts';
import type { HandoffDetail, TranscriptRow } from '../../api/types.ts';
import { QueryState } from '../../components/query-state.tsx';
import { readLiveMessage } from '../conversations/live-events.ts';
import { LiveStatusLine } from '../conversations/live-status-line.tsx';
import { fromTranscriptRow, withChoiceTitles } from '../conversations/message-model.ts';
import { MessageView } from '../conversations/message-view.tsx';
import { useEventSource } from '../conversations/use-event-source.ts';
import { useLiveRefresh } from '../conversations/use-live-refresh.ts';
import { VariablesView } from '../conversations/variables-view.tsx';
import { ClaimBar, CloseHandoff, HandBack } from './handoff-actions.tsx';
import {
  durationText,
  isHolder,
  isOpen,
  personOf,
  readLiveHandoff,
  statusText,
  waitedSeconds,
} from './handoff-model.ts';
import { getHandoff, inboxEventsUrl, inboxKeys } from './inbox-api.ts';
import { NoteForm } from './note-form.tsx';
import { ReplyForm } from './reply-form.tsx';
import { TemplateForm } from './template-form.tsx';
import { WindowNote } from './window-note.tsx';
import { windowClosed } from './whatsapp-window.ts';
import { useNow } from './use-now.ts';
import '../conversations/conversations.css';
import './inbox.css';

/** Least time between two refetches caused by live events (ms). */
const LIVE_REFRESH_MS = 400;

export function HandoffPage() {
  const { id = '' } = useParams();
  const me = useMe();
  const may = useMay();
  const now = useNow();
  const detail = useQuery({
    queryKey: inboxKeys.detail(id),
    queryFn: () => getHandoff(id),
    enabled: id !== '',
  });
  const refresh = useLiveRefresh([inboxKeys.detail(id)], LIVE_REFRESH_MS);

  const handoff = detail.data;
  const live = useEventSource(
    handoff ? inboxEventsUrl('handoff,message', handoff.app_id) : null,
    {
      handoff: (data) => {
        if (readLiveHandoff(data)?.handoff_id === id) refresh();
      },
      message: (data) => {
        if (readLiveMessage(data)?.conversation_id === handoff?.conversation_id) refresh();
      },
      reset: refresh,
    },
    { withCredentials: true },
  );

  if (detail.isError || !handoff) {
    return (
      <div className="handoff">
        <h1>Handoff</h1>
        <QueryState
          query={detail}
          failed="Could not load the handoff."
          onRetry={() => void detail.refetch()}
        />
      </div>
    );
  }

  const viewer = me.data;
  // Claiming, replying, notes, hand back and close share one row of the permission table.
  const canAct = may('POST /v2/handoffs/:id/claim');
  const holds = viewer !== undefined && isHolder(handoff, viewer);
  const open = isOpen(handoff.status);
  const person = personOf(handoff);
  const waited = waitedSeconds(handoff, detail.dataUpdatedAt, now);
  return (
    <div className="handoff">
      <p>
        <Link to="/inbox">Back to the inbox</Link>
      </p>
      <h1>Handoff: {person}</h1>
      <p className={`handoff__status handoff__status--${handoff.status}`}>
        <strong>{statusText(handoff, viewer)}</strong>
        {handoff.status === 'waiting' ? ` · waiting ${durationText(waited)}` : null}
        {handoff.queue ? ` · queue ${handoff.queue}` : null}
      </p>
      <LiveStatusLine live={live} />
      {!canAct ? (
        <p className="hint">You can read this handoff; owners and agents answer and act on it.</p>
      ) : null}
      {canAct && open ? (
        <div data-route="POST /v2/handoffs/:id/claim">
          <ClaimBar handoff={handoff} holds={holds} />
        </div>
      ) : null}
      <div className="handoff__columns">
        <section aria-labelledby="handoff-transcript" className="handoff__transcript">
          <h2 id="handoff-transcript">Transcript</h2>
          <Transcript handoff={handoff} person={person} />
          {canAct && holds ? (
            <div data-route="POST /v2/handoffs/:id/messages">
              <WindowNote window={handoff.whatsapp_window} now={now} />
              {windowClosed(handoff.whatsapp_window, now) ? (
                <TemplateForm
                  handoffId={handoff.id}
                  appId={handoff.app_id}
                  channelId={handoff.conversation.channel_id ?? ''}
                  person={person}
                />
              ) : (
                <ReplyForm handoffId={handoff.id} person={person} />
              )}
            </div>
          ) : null}
          {canAct && open && !holds ? (
            <p className="hint">
              {handoff.status === 'waiting'
                ? 'Claim the conversation to answer.'
                : 'Another agent answers this conversation.'}
            </p>
          ) : null}
        </section>
        <aside className="handoff__side" aria-label="About the conversation">
          <section aria-labelledby="handoff-about">
            <h2 id="handoff-about">About</h2>
            <dl className="handoff__about">
              <dt>Channel</dt>
              <dd>{handoff.channel_type}</dd>
              <dt>Chat id</dt>
              <dd>
                <code>{handoff.chat_id}</code>
              </dd>
              <dt>Began</dt>
              <dd>
                <time dateTime={handoff.created_at}>
                  {new Date(handoff.created_at).toLocaleString()}
                </time>{' '}
                ({handoff.reason === 'step' ? 'by the flow' : 'the user asked'})
              </dd>
              <dt>Flow state</dt>
              <dd>
                {handoff.conversation.state ? <code>{handoff.conversation.state}</code> : 'none'}
              </dd>
            </dl>
            <p>
              <Link to={`/conversations/${handoff.conversation_id}`}>The whole conversation</Link>
            </p>
          </section>
          <section aria-labelledby="handoff-variables">
            <h2 id="handoff-variables">Variables</h2>
            <VariablesView variables={handoff.conversation.variables} />
          </section>
          {canAct ? (
            <div data-route="POST /v2/handoffs/:id/notes">
              <NoteForm handoffId={handoff.id} />
            </div>
          ) : null}
          {canAct && open ? (
            <section aria-labelledby="handoff-end" data-route="POST /v2/handoffs/:id/return">
              <h2 id="handoff-end">Hand back or close</h2>
              <HandBack handoff={handoff} holds={holds} />
              <CloseHandoff handoff={handoff} holds={holds} person={person} />
            </section>
          ) : null}
        </aside>
      </div>
    </div>
  );
}

/** The rows before the handoff, a line where it began, and the rows since. */
function Transcript({ handoff, person }: { handoff: HandoffDetail; person: string }) {
  const before: TranscriptRow[] = handoff.transcript.before;
  const since: TranscriptRow[] = handoff.transcript.since;
  const shown = withChoiceTitles([...before, ...since].map(fromTranscriptRow));
  const beforeShown = shown.slice(0, before.length);
  const sinceShown = shown.slice(before.length);
  // The newest message in view, as in a chat, whenever one arrives.
  const log = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (log.current) log.current.scrollTop = log.current.scrollHeight;
  }, [shown.length]);
  return (
    // Focusable: the log scrolls, and a keyboard must be able to scroll it.
    <div ref={log} role="log" aria-label="Transcript" className="handoff__log" tabIndex={0}>
      <ol className="messages">
        {beforeShown.map((m) => (
          <MessageView key={m.key} message={m} userLabel={person} />
        ))}
        <li className="handoff__began" aria-label="The handoff began here">
          Handed to a person
        </li>
        {sinceShown.map((m) => (
          <MessageView key={m.key} message={m} userLabel={person} />
        ))}
      </ol>
      {handoff.transcript.more ? (
        <p>
          More messages follow:{' '}
          <Link to={`/conversations/${handoff.conversation_id}`}>the whole conversation</Link>.
        </p>
      ) : null}
    </div>
  );
}

/**
 * The holder's reply box: text, text with reply buttons, or an image or a document by URL. While
 * the agent types, the user is shown "typing…" where the platform has it (POST …/typing at most
 * every {@link TYPING_EVERY_MS}; Telegram shows it about five seconds). A draft keeps its
 * `client_message_id` until it is sent, so a retried send is not sent twice.
 */
import { useRef, useState, type FormEvent } from 'react';
import type { AgentMessage } from '../../api/types.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
// Not crypto.randomUUID: it exists only in secure contexts (see there).
import { newClientMessageId } from '../test-chat/chat-session.ts';
import { sendReply, showTyping } from './inbox-api.ts';
import { MessageDraftFields } from '../../components/message-draft-fields.tsx';
import { EMPTY, messageOf, type Draft } from './reply-draft.ts';
import { useHandoffAction } from './use-handoff-action.ts';

/** Least time between two typing indicators (ms). */
export const TYPING_EVERY_MS = 4000;

export function ReplyForm({ handoffId, person }: { handoffId: string; person: string }) {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const clientId = useRef(newClientMessageId());
  const lastTyping = useRef(0);
  const send = useHandoffAction((message: AgentMessage) =>
    sendReply(handoffId, clientId.current, message),
  );
  const set = (field: keyof Draft) => (value: string) => {
    setDraft((d) => ({ ...d, [field]: value }));
    if (field !== 'kind' && Date.now() - lastTyping.current >= TYPING_EVERY_MS) {
      lastTyping.current = Date.now();
      // Best effort, as the platform's own indicator: a failure is not worth an alert, but the
      // next keystroke tries again rather than waiting out the interval of a call never shown.
      const sent = lastTyping.current;
      showTyping(handoffId).catch(() => {
        if (lastTyping.current === sent) lastTyping.current = 0;
      });
    }
  };
  const message = messageOf(draft);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!message) return;
    send.mutate(message, {
      onSuccess: () => {
        clientId.current = newClientMessageId();
        lastTyping.current = 0;
        setDraft((d) => ({ ...EMPTY, kind: d.kind }));
      },
    });
  };
  return (
    <form className="handoff__reply" aria-label={`Reply to ${person}`} onSubmit={submit}>
      <MessageDraftFields draft={draft} set={set} textLabel="Reply" />
      <button type="submit" disabled={!message || send.isPending}>
        {send.isPending ? 'Sending…' : 'Send'}
      </button>
      {send.isError ? <ErrorAlert error={send.error} what="Not sent." /> : null}
    </form>
  );
}

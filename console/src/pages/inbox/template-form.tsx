/**
 * The holder's reply once a WhatsApp window closed (docs/outbound.md): only an approved template
 * may go, so the agent picks one of the channel's, gives each placeholder its text, reads the
 * body as the user will, and sends. The draft keeps its `client_message_id` until it is sent.
 */
import { useRef, type FormEvent } from 'react';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { TemplateFields, useTemplateChoice } from '../../components/template-fields.tsx';
import type { AgentMessage } from '../../api/types.ts';
// Not crypto.randomUUID: it exists only in secure contexts (see there).
import { newClientMessageId } from '../test-chat/chat-session.ts';
import { sendReply } from './inbox-api.ts';
import { useHandoffAction } from './use-handoff-action.ts';

interface Props {
  handoffId: string;
  appId: string;
  channelId: string;
  person: string;
}

export function TemplateForm({ handoffId, appId, channelId, person }: Props) {
  const choice = useTemplateChoice(appId, channelId);
  const clientId = useRef(newClientMessageId());
  const send = useHandoffAction((message: AgentMessage) =>
    sendReply(handoffId, clientId.current, message),
  );
  const { message } = choice;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!message) return;
    send.mutate(message, {
      onSuccess: () => {
        clientId.current = newClientMessageId();
        choice.choose('');
      },
    });
  };
  return (
    <form className="handoff__reply" aria-label={`Send ${person} a template`} onSubmit={submit}>
      <TemplateFields choice={choice} id={`preview-${handoffId}`} />
      {choice.approved.length > 0 && (
        <button type="submit" disabled={!message || send.isPending}>
          {send.isPending ? 'Sending…' : 'Send template'}
        </button>
      )}
      {send.isError ? <ErrorAlert error={send.error} what="Not sent." /> : null}
    </form>
  );
}

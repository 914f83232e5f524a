/**
 * "Write to this user" on a conversation's page (owners and builders; docs/outbound.md): the bot
 * sends one message to the user now, text, text with buttons, or an image or a document by URL.
 * A draft keeps its idempotency key until it is sent, so a retried send is not sent twice. On
 * WhatsApp the api refuses free text outside the 24-hour window, and the refusal says so; an
 * approved template goes at any time (the channel's, chosen and filled as in the inbox). The
 * user's answer may be sent to a state of the flow that waits for one (`flow_state`).
 */
import { useRef, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AgentMessage } from '../../api/types.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { TemplateFields, useTemplateChoice } from '../../components/template-fields.tsx';
// Not crypto.randomUUID: it exists only in secure contexts (see there).
import { newClientMessageId } from '../test-chat/chat-session.ts';
import { MessageDraftFields } from '../../components/message-draft-fields.tsx';
import { EMPTY, messageOf, type Draft } from '../inbox/reply-draft.ts';
import { conversationKeys, sendFirst } from './conversations-api.ts';
import { useBot } from '../../api/bots.ts';
import { AnswerStateField } from '../../components/answer-state-field.tsx';

export function WriteFirstForm({
  appId,
  conversationId,
  channelId,
  channelType,
}: {
  appId: string;
  conversationId: string;
  channelId: string;
  channelType: string;
}) {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [asTemplate, setAsTemplate] = useState(false);
  const choice = useTemplateChoice(appId, channelId, channelType === 'whatsapp');
  const template = channelType === 'whatsapp' && asTemplate;
  const [sent, setSent] = useState(false);
  const [flowState, setFlowState] = useState('');
  const flow = useBot(appId).data?.flow;
  const key = useRef(newClientMessageId());
  const queryClient = useQueryClient();
  const send = useMutation({
    mutationFn: (message: AgentMessage) =>
      sendFirst(appId, conversationId, key.current, message, flowState),
    onSuccess: () => {
      key.current = newClientMessageId();
      setDraft((d) => ({ ...EMPTY, kind: d.kind }));
      setFlowState('');
      choice.choose('');
      setSent(true);
      void queryClient.invalidateQueries({ queryKey: conversationKeys.messages(conversationId) });
    },
  });
  const set = (field: keyof Draft) => (value: string) => {
    setSent(false);
    setDraft((d) => ({ ...d, [field]: value }));
  };
  const message = template ? choice.message : messageOf(draft);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (message) send.mutate(message);
  };
  return (
    <section
      aria-labelledby="write-first"
      className="conversation__write"
      data-route="POST /v2/bots/:app_id/messages"
    >
      <h2 id="write-first">Write to this user</h2>
      <p className="hint">
        The bot sends it now, in order with its replies; the transcript shows when it is sent.
        {channelType === 'whatsapp'
          ? ' WhatsApp allows free text only within 24 hours of the user’s last message.'
          : ''}
      </p>
      <form aria-label="Write to this user" onSubmit={submit}>
        {channelType === 'whatsapp' && (
          <label>
            <input
              type="checkbox"
              checked={asTemplate}
              onChange={(e) => {
                setSent(false);
                setAsTemplate(e.target.checked);
              }}
            />{' '}
            Send an approved template (after the 24-hour window)
          </label>
        )}
        {template ? (
          <TemplateFields choice={choice} id="write-first-template-preview" />
        ) : (
          <MessageDraftFields draft={draft} set={set} textLabel="Message" />
        )}
        <AnswerStateField
          flow={flow}
          value={flowState}
          onChange={(state) => {
            setSent(false);
            setFlowState(state);
          }}
        />
        <button type="submit" disabled={!message || send.isPending}>
          {send.isPending ? 'Sending…' : 'Send'}
        </button>
        {sent ? <p role="status">Accepted: the transcript shows it once it is sent.</p> : null}
        {send.isError ? <ErrorAlert error={send.error} what="Not sent." /> : null}
      </form>
    </section>
  );
}

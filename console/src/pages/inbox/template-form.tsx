/**
 * The holder's reply once a WhatsApp window closed (docs/outbound.md): only an approved template
 * may go, so the agent picks one of the channel's, gives each placeholder its text, reads the
 * body as the user will, and sends. The draft keeps its `client_message_id` until it is sent.
 */
import { useQuery } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { QueryState } from '../../components/query-state.tsx';
import type { AgentMessage } from '../../api/types.ts';
// Not crypto.randomUUID: it exists only in secure contexts (see there).
import { newClientMessageId } from '../test-chat/chat-session.ts';
import { listTemplates, sendReply } from './inbox-api.ts';
import { approvedFor, previewOf, templateKey, templateMessage } from './template-draft.ts';
import { useHandoffAction } from './use-handoff-action.ts';

interface Props {
  handoffId: string;
  appId: string;
  channelId: string;
  person: string;
}

export function TemplateForm({ handoffId, appId, channelId, person }: Props) {
  const templates = useQuery({
    queryKey: ['templates', appId],
    queryFn: () => listTemplates(appId),
  });
  const [chosen, setChosen] = useState('');
  const [header, setHeader] = useState<string[]>([]);
  const [body, setBody] = useState<string[]>([]);
  const clientId = useRef(newClientMessageId());
  const send = useHandoffAction((message: AgentMessage) =>
    sendReply(handoffId, clientId.current, message),
  );
  const approved = approvedFor(templates.data ?? [], channelId);
  const template = approved.find((t) => templateKey(t) === chosen);
  const message = template ? templateMessage(template, header, body) : undefined;
  const choose = (key: string) => {
    setChosen(key);
    setHeader([]);
    setBody([]);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!message) return;
    send.mutate(message, {
      onSuccess: () => {
        clientId.current = newClientMessageId();
        choose('');
      },
    });
  };
  const inputs = (label: string, count: number, values: string[], set: (v: string[]) => void) =>
    Array.from({ length: count }, (_, i) => (
      <label key={`${label}-${i}`}>
        {label} {`{{${i + 1}}}`}
        <input
          value={values[i] ?? ''}
          onChange={(e) => set(Object.assign([...values], { [i]: e.target.value }))}
        />
      </label>
    ));
  return (
    <form className="handoff__reply" aria-label={`Send ${person} a template`} onSubmit={submit}>
      <QueryState
        query={templates}
        failed="Could not load the templates."
        empty="This channel has no approved template: a builder syncs them from the WhatsApp Business Account."
        isEmpty={approved.length === 0}
        onRetry={() => void templates.refetch()}
      />
      {approved.length === 0 ? null : (
        <>
          <label>
            Template
            <select value={chosen} onChange={(e) => choose(e.target.value)}>
              <option value="">Choose a template…</option>
              {approved.map((t) => (
                <option key={templateKey(t)} value={templateKey(t)}>
                  {t.name} ({t.language})
                </option>
              ))}
            </select>
          </label>
          {template ? (
            <>
              {inputs('Header', template.parameters.header, header, setHeader)}
              {inputs('Body', template.parameters.body, body, setBody)}
              <p className="hint" id={`preview-${handoffId}`}>
                They will read:
              </p>
              <p className="handoff__preview" aria-labelledby={`preview-${handoffId}`}>
                {previewOf(template, body)}
              </p>
            </>
          ) : null}
          <button type="submit" disabled={!message || send.isPending}>
            {send.isPending ? 'Sending…' : 'Send template'}
          </button>
        </>
      )}
      {send.isError ? <ErrorAlert error={send.error} what="Not sent." /> : null}
    </form>
  );
}

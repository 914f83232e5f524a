/**
 * The broadcast composer (docs/outbound.md): a name, the channel, who gets it (every user, those
 * active since a date or in a language, or the ids of a CSV file) and the text, or on WhatsApp
 * an approved template, with `{{name}}` placeholders filled from each user's values. "Preview"
 * answers how many would get it, how many would be skipped and why (a dry run of the same
 * request), and for a template how the number's daily messaging limit spreads it; "Send" makes it.
 * The users' answers may go to a state of the flow that waits for one (`flow_state`).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { Bot } from '../../api/types.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Field } from '../bots/channel-fields.tsx';
import { TemplateFields, useTemplateChoice } from '../../components/template-fields.tsx';
import {
  broadcastKeys,
  createBroadcast,
  previewBroadcast,
  type NewBroadcast,
} from './broadcasts-api.ts';
import { limitPlanInWords, skippedInWords } from './broadcast-words.ts';
import { AnswerStateField } from '../../components/answer-state-field.tsx';

type Kind = 'all' | 'filter' | 'csv';

export function BroadcastForm({ bot }: { bot: Bot }) {
  const queryClient = useQueryClient();
  const channels = bot.channels.filter((c) => c.type !== 'console');
  const [name, setName] = useState('');
  const [channelId, setChannelId] = useState(channels[0]?.id ?? '');
  const [kind, setKind] = useState<Kind>('all');
  const [language, setLanguage] = useState('');
  const [since, setSince] = useState('');
  const [csv, setCsv] = useState('');
  const [text, setText] = useState('');
  const [asTemplate, setAsTemplate] = useState(false);
  const [flowState, setFlowState] = useState('');
  const whatsapp = channels.find((c) => c.id === channelId)?.type === 'whatsapp';
  const choice = useTemplateChoice(bot.app_id, channelId, whatsapp);
  const template = whatsapp && asTemplate;
  const message = template
    ? choice.message
    : text
      ? { message_type: 'text' as const, text }
      : undefined;
  const request = (): NewBroadcast => ({
    name,
    channel_id: channelId,
    audience:
      kind === 'csv'
        ? { kind, csv }
        : kind === 'filter'
          ? {
              kind,
              ...(language ? { language } : {}),
              ...(since ? { active_since: new Date(since).toISOString() } : {}),
            }
          : { kind },
    message: message ?? { message_type: 'text', text },
    ...(flowState ? { flow_state: flowState } : {}),
  });
  const preview = useMutation({ mutationFn: () => previewBroadcast(bot.app_id, request()) });
  const create = useMutation({
    mutationFn: () => createBroadcast(bot.app_id, request()),
    onSuccess: () => {
      preview.reset();
      setName('');
      setText('');
      setFlowState('');
      choice.choose('');
      void queryClient.invalidateQueries({ queryKey: broadcastKeys.list(bot.app_id) });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  if (channels.length === 0) return <p>The bot needs a Telegram, WhatsApp or web channel.</p>;
  return (
    <form
      aria-label="New broadcast"
      onSubmit={submit}
      data-route="POST /v2/bots/:app_id/broadcasts"
    >
      <Field id="broadcast-name" label="Broadcast name" value={name} onChange={setName} required />
      <div className="field">
        <label htmlFor="broadcast-channel">Channel</label>
        <select
          id="broadcast-channel"
          value={channelId}
          onChange={(e) => setChannelId(e.target.value)}
        >
          {channels.map((c) => (
            <option key={c.id} value={c.id}>
              {c.type}
            </option>
          ))}
        </select>
      </div>
      <fieldset>
        <legend>Who gets it</legend>
        {(
          [
            ['all', 'Every user of the channel'],
            ['filter', 'Users active since, or in a language'],
            ['csv', 'The users of a CSV file'],
          ] as const
        ).map(([value, label]) => (
          <label key={value}>
            <input
              type="radio"
              name="audience"
              value={value}
              checked={kind === value}
              onChange={() => setKind(value)}
            />{' '}
            {label}
          </label>
        ))}
        {kind === 'filter' && (
          <>
            <div className="field">
              <label htmlFor="broadcast-since">Active since</label>
              <input
                id="broadcast-since"
                type="date"
                value={since}
                onChange={(e) => setSince(e.target.value)}
              />
            </div>
            <Field
              id="broadcast-language"
              label="Language"
              value={language}
              onChange={setLanguage}
              hint="A code such as en or pt-BR; empty: any."
            />
          </>
        )}
        {kind === 'csv' && (
          <div className="field">
            <label htmlFor="broadcast-csv">
              CSV file (a chat_id column; other columns fill placeholders)
            </label>
            <input
              id="broadcast-csv"
              type="file"
              accept=".csv,text/csv"
              onChange={(e) => void e.target.files?.[0]?.text().then(setCsv)}
            />
          </div>
        )}
      </fieldset>
      {whatsapp && (
        <fieldset>
          <legend>Send as</legend>
          <label>
            <input
              type="radio"
              name="broadcast-as"
              checked={!asTemplate}
              onChange={() => setAsTemplate(false)}
            />{' '}
            Text (reaches users who wrote in the last 24 hours)
          </label>
          <label>
            <input
              type="radio"
              name="broadcast-as"
              checked={asTemplate}
              onChange={() => setAsTemplate(true)}
            />{' '}
            A WhatsApp template (reaches everyone; counts against the number’s daily limit)
          </label>
        </fieldset>
      )}
      {template ? (
        <TemplateFields
          choice={choice}
          id="broadcast-template-preview"
          placeholderHint="A field may hold {{name}}, filled from each user’s value of that name (a CSV column, or a variable the flow stored)."
        />
      ) : (
        <div className="field">
          <label htmlFor="broadcast-text">Message</label>
          <textarea
            id="broadcast-text"
            required
            maxLength={4096}
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-describedby="broadcast-text-hint"
          />
          <small id="broadcast-text-hint" className="hint">
            {'{{name}}'} is filled from each user’s value of that name (a CSV column, or a variable
            the flow stored); a user without it is skipped.
            {whatsapp &&
              ' On WhatsApp, free text reaches only users who wrote in the last 24 hours: send a template to reach the others.'}
          </small>
        </div>
      )}
      <AnswerStateField
        flow={bot.flow}
        value={flowState}
        onChange={setFlowState}
        label="The answers go to"
      />
      <p>
        <button
          type="button"
          disabled={preview.isPending || !name || !message}
          onClick={() => preview.mutate()}
        >
          Preview
        </button>{' '}
        <button type="submit" disabled={create.isPending || !message}>
          {create.isPending ? 'Sending…' : 'Send'}
        </button>
      </p>
      <div aria-live="polite">
        {preview.isSuccess && (
          <p role="status">
            {preview.data.will_send} of {preview.data.total} would get it; skipped:{' '}
            {skippedInWords(preview.data.skipped)}. {limitPlanInWords(preview.data.messaging_limit)}
          </p>
        )}
        {create.isSuccess && (
          <p role="status">
            Broadcast made ({create.data.status}): its progress is in the list above.{' '}
            {limitPlanInWords(create.data.messaging_limit)}
          </p>
        )}
      </div>
      {preview.isError && <ErrorAlert error={preview.error} what="Could not preview it." />}
      {create.isError && <ErrorAlert error={create.error} what="Could not make the broadcast." />}
    </form>
  );
}

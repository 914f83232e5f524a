/**
 * Creates a bot with its first channel, on the default flow (no flow is sent: the server gives
 * it, docs/flows.md) or on a blank one (blank-flow.ts), which the flow editor then changes.
 */
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useCreateBot } from '../../api/bots.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { BLANK_FLOW } from './blank-flow.ts';
import { ChannelFields, channelOf, Field, type ChannelType } from './channel-fields.tsx';

export function CreateBotForm() {
  const [name, setName] = useState('');
  const [type, setType] = useState<ChannelType>('telegram');
  const [fields, setFields] = useState<Record<string, string>>({});
  const [blank, setBlank] = useState(false);
  const create = useCreateBot();
  const navigate = useNavigate();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      {
        name: name.trim(),
        channel: channelOf(type, fields),
        ...(blank ? { flow: structuredClone(BLANK_FLOW) } : {}),
      },
      { onSuccess: (bot) => void navigate(`/bots/${bot.app_id}`) },
    );
  };
  return (
    <section aria-labelledby="new-bot">
      <h2 id="new-bot">New bot</h2>
      <form onSubmit={submit} data-route="POST /v2/bots">
        <Field id="new-bot-name" label="Name" value={name} onChange={setName} required />
        <fieldset>
          <legend>Channel</legend>
          <ChannelFields
            prefix="new-bot"
            type={type}
            onType={setType}
            fields={fields}
            onFields={setFields}
            error={create.error}
          />
        </fieldset>
        <fieldset>
          <legend>Start from</legend>
          <label>
            <input
              type="radio"
              name="new-bot-flow"
              checked={!blank}
              onChange={() => setBlank(false)}
            />{' '}
            the default flow (a greeting, a menu of two buttons, an echo)
          </label>
          <label>
            <input
              type="radio"
              name="new-bot-flow"
              checked={blank}
              onChange={() => setBlank(true)}
            />{' '}
            a blank flow (one state, to build on the canvas)
          </label>
        </fieldset>
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create bot'}
        </button>
        {create.error && <ErrorAlert error={create.error} what="Could not create the bot." />}
      </form>
    </section>
  );
}
